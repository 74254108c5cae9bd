#pragma once
// Whether this program has libtorch linked in. fusebox-pass is built twice:
// a light build without libtorch (no 0.8 s libtorch start-up, for reading
// PT2 graphs) and fusebox-pass-torch with it; the light one hands commands
// that need libtorch (TorchScript models, numeric verification, .pt output)
// to the other (app/pass/TorchDispatch.cpp).

namespace fusebox {

/// True in builds linked with core/torch's libtorch code; false in the light
/// build, where the libtorch-backed functions of core/torch must not be called.
bool libtorchLinked();

/// The linked libtorch's version ("1.13.1"); "" in the light build.
const char *libtorchVersion();

} // namespace fusebox
