"""torchvision's resnet18 (random weights, eval mode) on one 224x224 image:
a standard model on which no Optimus rule should fire."""
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).eval()
example_inputs = (torch.randn(1, 3, 224, 224),)
