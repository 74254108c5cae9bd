#include "TestGraphs.h"

#include "core/io/GraphJson.h"
#include "core/ir/GraphCompare.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/PatternRewriter.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

struct CountingListener final : RewriteListener {
    int inserted = 0, erased = 0, modified = 0;
    void nodeInserted(const Graph &, NodeId) override { ++inserted; }
    void nodeErasing(const Graph &, NodeId) override { ++erased; }
    void nodeModified(const Graph &, NodeId) override { ++modified; }
};

/// Replaces the four relus of the test graph by one relu on the split input:
/// split -> getitem -> relu -> cat  becomes  relu(x) (a rewrite in miniature).
void rewriteReluSplitCat(PatternRewriter &rewriter)
{
    const Graph &g = rewriter.graph();
    NodeId x = g.findByName("x"), cat = g.findByName("cat");
    rewriter.setCreatedBy("sink_relu#1");
    NodeId fused = rewriter.createOp("aten::relu", {x}, {}, cat);
    rewriter.replaceAndErase(cat, fused);
}

} // namespace

TEST_CASE("the rewriter records edits that undo and redo exactly", "[rewrite]")
{
    Graph g = test::splitReluCatGraph();
    const std::string original = writeGraphJson(g);
    EditLog log;
    CountingListener listener;
    PatternRewriter rewriter(g, &log, &listener);

    log.beginGroup("sink_relu#1");
    rewriteReluSplitCat(rewriter);
    log.endGroup();

    REQUIRE(verify(g).empty());
    const std::string rewritten = writeGraphJson(g);
    CHECK(g.size() == 5); // x, w, relu, head, output
    CHECK(listener.inserted == 1);
    CHECK(listener.erased == 10);  // cat, 4 relu, 4 getitem, split
    CHECK(listener.modified == 1); // head now reads the new relu
    NodeId fused = g.node(g.findByName("head"))->args()[0].node();
    CHECK(g.node(fused)->provenance.createdBy == "sink_relu#1");
    REQUIRE(log.groups().size() == 1);
    CHECK(log.groups()[0].label == "sink_relu#1");

    REQUIRE(log.undo(g));
    CHECK(verify(g).empty());
    CHECK(writeGraphJson(g) == original);
    CHECK_FALSE(g.contains(fused));
    CHECK(log.canRedo());

    REQUIRE(log.redo(g));
    CHECK(writeGraphJson(g) == rewritten);
    CHECK(g.contains(fused)); // the same NodeId comes back
    CHECK_FALSE(log.canRedo());
}

TEST_CASE("undo after several groups restores each state in turn", "[rewrite]")
{
    Graph g = test::splitReluCatGraph();
    EditLog log;
    PatternRewriter rewriter(g, &log);
    std::vector<std::string> states{writeGraphJson(g)};

    log.beginGroup("rename");
    rewriter.modify(g.findByName("head"), [](Node &n) { n.meta.dtype = DType::Float16; });
    log.endGroup();
    states.push_back(writeGraphJson(g));

    log.beginGroup("move");
    rewriter.moveBefore(g.findByName("w"), g.findByName("head"));
    log.endGroup();
    states.push_back(writeGraphJson(g));

    log.beginGroup("rewrite");
    rewriteReluSplitCat(rewriter);
    log.endGroup();
    states.push_back(writeGraphJson(g));

    log.beginGroup("nothing"); // an empty group is dropped
    log.endGroup();
    CHECK(log.groups().size() == 3);

    for (int i = 2; i >= 0; --i) {
        REQUIRE(log.undo(g));
        CHECK(writeGraphJson(g) == states[i]);
    }
    CHECK_FALSE(log.undo(g));
    REQUIRE(log.redo(g));
    CHECK(writeGraphJson(g) == states[1]);

    // A new edit after an undo drops the undone future.
    log.beginGroup("other");
    rewriter.erase(g.findByName("nonexistent"));
    rewriter.modify(g.findByName("x"), [](Node &n) { n.provenance.scope = "in"; });
    log.endGroup();
    CHECK(log.groups().size() == 2);
    CHECK_FALSE(log.canRedo());
}

TEST_CASE("erase refuses nodes with users, eraseIfDead removes dead chains", "[rewrite]")
{
    Graph g = test::splitReluCatGraph();
    PatternRewriter rewriter(g);
    CHECK_FALSE(rewriter.erase(g.findByName("split")));
    NodeId extra = rewriter.createOp("aten::neg", {g.findByName("relu")});
    NodeId extra2 = rewriter.createOp("aten::abs", {extra});
    rewriter.eraseIfDead(extra2);
    CHECK_FALSE(g.contains(extra));
    CHECK_FALSE(g.contains(extra2));
    CHECK(g.contains(g.findByName("relu"))); // still used by cat
    CHECK(verify(g).empty());
}

TEST_CASE("argument edits keep only the arguments, and undo and redo exactly", "[rewrite]")
{
    Graph g = test::splitReluCatGraph();
    const std::string original = writeGraphJson(g);
    EditLog log;
    PatternRewriter rewriter(g, &log);
    log.beginGroup("sink_relu#1");
    rewriteReluSplitCat(rewriter);
    log.endGroup();
    const std::string rewritten = writeGraphJson(g);

    // head's rewire is a SetArgs edit holding its old and new arguments, no
    // node copy; every erased node is kept whole, to come back on undo.
    const NodeId head = g.findByName("head");
    size_t setArgs = 0, erased = 0;
    for (const Edit &e : log.groups()[0].edits) {
        if (e.kind == Edit::Kind::SetArgs) {
            ++setArgs;
            CHECK(e.node == head);
            CHECK_FALSE(e.before);
            REQUIRE(e.oldArgs);
            REQUIRE(e.newArgs);
            CHECK(e.newArgs->args == g.node(head)->args());
            CHECK(e.oldArgs->args != e.newArgs->args);
        } else if (e.kind == Edit::Kind::Erase) {
            ++erased;
            REQUIRE(e.before);
            CHECK(e.before->id() == e.node);
        }
        CHECK(e.kind != Edit::Kind::Modify);
    }
    CHECK(setArgs == 1);
    CHECK(erased == 10);

    for (int round = 0; round < 2; ++round) {
        REQUIRE(log.undo(g));
        CHECK(verify(g).empty());
        CHECK(writeGraphJson(g) == original);
        REQUIRE(log.redo(g));
        CHECK(writeGraphJson(g) == rewritten);
    }
}

TEST_CASE("a log kept only to take work back skips data edits of nodes its open group inserted", "[rewrite]")
{
    Graph g = test::splitReluCatGraph();
    const std::string original = writeGraphJson(g);
    EditLog log;
    log.setRedoable(false);
    PatternRewriter rewriter(g, &log);

    log.beginGroup("rewrite");
    const NodeId head = g.findByName("head");
    CHECK(log.needsModifyOf(head)); // no insert yet
    rewriter.modify(head, [](Node &n) { n.provenance.scope = "tower"; });
    const NodeId x = g.findByName("x"), cat = g.findByName("cat");
    const NodeId fused = rewriter.createOp("aten::relu", {x}, {}, cat);
    CHECK_FALSE(log.needsModifyOf(fused));
    CHECK(log.needsModifyOf(head)); // existed before the group
    rewriter.modify(fused, [](Node &n) { n.provenance.scope = "tower"; });
    rewriter.replaceAndErase(cat, fused);
    log.endGroup();
    CHECK(log.needsModifyOf(fused)); // no group open

    size_t modifies = 0;
    for (const Edit &e : log.groups()[0].edits) {
        if (e.kind == Edit::Kind::Modify) {
            ++modifies;
            CHECK(e.node == head); // the fused node's is not kept: undo removes it
            CHECK_FALSE(e.after);
        }
        if (e.kind == Edit::Kind::SetArgs)
            CHECK_FALSE(e.newArgs);
    }
    CHECK(modifies == 1);
    CHECK(g.node(fused)->provenance.scope == "tower");

    REQUIRE(log.undo(g));
    CHECK(verify(g).empty());
    CHECK(writeGraphJson(g) == original);
    CHECK_FALSE(log.canRedo());
}
