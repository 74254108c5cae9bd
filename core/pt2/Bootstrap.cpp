#include "Bootstrap.h"

namespace fusebox::pt2 {

const std::string &bootstrapSource()
{
    // The finder is also the loader; get_source() lets linecache show source
    // lines in tracebacks although the files exist only in the header.
    static const std::string source = R"PY(import importlib.abc, importlib.util, json, sys
header = json.loads(sys.stdin.readline())
root, sources = header.get("root", "python"), header["sources"]
class SourceFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        base = name.replace(".", "/")
        for key, package in ((base + "/__init__.py", True), (base + ".py", False)):
            if key in sources:
                spec = importlib.util.spec_from_loader(name, self, origin=root + "/" + key, is_package=package)
                spec.has_location = True
                return spec
        return None
    def create_module(self, spec):
        return None
    def key(self, name):
        base = name.replace(".", "/")
        return base + "/__init__.py" if base + "/__init__.py" in sources else base + ".py"
    def get_source(self, name):
        return sources.get(self.key(name))
    def exec_module(self, module):
        key = self.key(module.__name__)
        exec(compile(sources[key], root + "/" + key, "exec"), module.__dict__)
sys.meta_path.insert(0, SourceFinder())
import fusebox_bridge.server
fusebox_bridge.server.main(header)
)PY";
    return source;
}

} // namespace fusebox::pt2
