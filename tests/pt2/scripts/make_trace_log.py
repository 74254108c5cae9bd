"""Makes a TORCH_TRACE log the way a production job leaves one: every model of
the oracle suite compiled by torch.compile (Inductor, CPU) in one process
under TORCH_TRACE, with Optimus configured as CONFIG says; then the first
model compiled again after torch._dynamo.reset() (served from the FX graph
cache: torch 2.14 runs no pre-grad pass then) and called with another batch
size (a recompile). Prints the log's text on stdout.

Run by tests/pt2/pt2_trace_tests.cpp as `PYTHON -c <this text> MODELS_B64
CONFIG_JSON [MODEL ...]`: MODELS_B64 is oracle_models.py's text in base64
(the Python may run in a chroot that cannot see the source tree).
"""
import base64
import glob
import json
import os
import shutil
import sys
import tempfile

trace_dir = tempfile.mkdtemp(prefix="fusebox-trace-")
os.environ["TORCH_TRACE"] = trace_dir
cache_dir = tempfile.mkdtemp(prefix="fusebox-inductor-cache-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir  # a cold cache: the first compiles miss

import torch  # noqa: E402  (TORCH_TRACE is read when torch is imported)
import torch._inductor.config as inductor_config  # noqa: E402

models = {"__name__": "oracle_models"}
exec(compile(base64.b64decode(sys.argv[1]), "oracle_models.py", "exec"), models)
config = json.loads(sys.argv[2])
names = sys.argv[3:] or list(models["MODELS"])

inductor_config.pre_grad_fusion_options = config.get("pre_grad_fusion_options", {})
inductor_config.post_grad_fusion_options = config.get("post_grad_fusion_options", {})
# Debian's torch links no SLEEF: vectorised CPU kernels fail to load. Scalar
# code changes nothing Optimus does.
inductor_config.cpp.simdlen = 1


def compile_and_run(model, inputs):
    with torch.no_grad():
        return torch.compile(model)(*inputs)


for name in names:
    model, inputs = models["MODELS"][name]()
    try:
        compile_and_run(model, inputs)
    except Exception as error:  # a failed compile is logged, as in production
        print("make_trace_log: %s: %s" % (name, str(error).splitlines()[0] if str(error) else type(error).__name__),
              file=sys.stderr)
    torch._dynamo.reset()

# The first model again: a cache hit, then a recompile for a new batch size.
model, inputs = models["MODELS"][names[0]]()
compiled = torch.compile(model)
try:
    with torch.no_grad():
        compiled(*inputs)
        compiled(*[torch.cat([x, x]) if isinstance(x, torch.Tensor) and x.dim() > 0 else x for x in inputs])
except Exception as error:
    print("make_trace_log: %s again: %s" % (names[0], str(error).splitlines()[0] if str(error) else type(error).__name__),
          file=sys.stderr)

logs = sorted(glob.glob(os.path.join(trace_dir, "*.log")))
for path in logs:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        sys.stdout.write(f.read())
shutil.rmtree(trace_dir, ignore_errors=True)
shutil.rmtree(cache_dir, ignore_errors=True)
