// The FX text reader alone (core/io/FxText.h), on the dumps given:
//   fusebox_bench_fx_read DUMP.py [REPEATS]
// Prints the dump's size and nodes, the first read in the process (what a
// command pays: fresh memory, cold caches) and the best of REPEATS more,
// each in ms and MB/s, and the best time to copy the graph read (a floor
// under any reader that makes this IR). The schemas the reader normalises against (libtorch
// 1.13's, embedded) are loaded first and timed apart: they are not the
// reader. bench/bench_read_dump.sh runs it beside its peer.
#include "BenchUtil.h"

#include "core/io/FxText.h"
#include "core/torch/TorchSchemas.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace fusebox;
using namespace fusebox::bench;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s DUMP.py [REPEATS]\n", argv[0]);
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
    if (repeats < 0) {
        std::fprintf(stderr, "%s: REPEATS must be 0 or more, found '%s'\n", argv[0], argv[2]);
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();

    auto start = Clock::now();
    const OpSchemaRegistry &schemas = torchSchemas();
    const double schemaMs = msSince(start);
    const FxReadOptions options{&schemas, argv[1]};

    start = Clock::now();
    Expected<LoadedModel> first = readFxText(text, options);
    const double coldMs = msSince(start);
    if (!first) {
        std::fprintf(stderr, "%s\n", first.error().message.c_str());
        return 1;
    }
    const size_t nodes = first->graph.size();
    // A floor under any reader of this IR: copying the graph read (every
    // node, its strings, args and indices, no text) is what the nodes
    // themselves cost to make, whatever reads them.
    double cloneMs = 1e300;
    for (int i = 0; i < std::max(repeats, 1); ++i) {
        start = Clock::now();
        Graph copy = first->graph.clone();
        cloneMs = std::min(cloneMs, msSince(start));
    }
    first = Error{"released"}; // the next reads reuse its memory, as a warm process would
    double warmMs = 1e300;
    for (int i = 0; i < repeats; ++i) {
        start = Clock::now();
        Expected<LoadedModel> again = readFxText(text, options);
        warmMs = std::min(warmMs, msSince(start));
    }
    const double mb = double(text.size()) / 1e6;
    std::printf("dump: %s (%zu bytes, %zu nodes)\n", argv[1], text.size(), nodes);
    std::printf("schemas loaded            %8.1f ms (not the reader)\n", schemaMs);
    std::printf("readFxText, first call    %8.1f ms  %6.1f MB/s\n", coldMs, mb / (coldMs / 1e3));
    if (repeats > 0) // (REPEATS 0: the first call alone)
        std::printf("readFxText, best of %-3d   %8.1f ms  %6.1f MB/s\n", repeats, warmMs, mb / (warmMs / 1e3));
    std::printf("Graph::clone() of it      %8.1f ms  (best of %d: the nodes' own cost, no text read)\n", cloneMs,
                std::max(repeats, 1));
    return 0;
}
