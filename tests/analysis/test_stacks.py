"""profguide.analysis.stacks: the folded lines export_stacks writes, parsed, added up and merged."""

from profguide.analysis import stacks

LINES = [
    "run.py(3):_<module>;model.py(10):_block;model.py(4):_attention 30",
    "run.py(3):_<module>;model.py(10):_block;model.py(7):_feed_forward 50",
    "run.py(3):_<module>;model.py(10):_block;model.py(4):_attention 20",
    "run.py(3):_<module>;torch/profiler/profiler.py(1118):___enter__ 5",
    "not a stack",
]


def test_lines_become_frames_and_values_and_the_rest_is_left_out():
    found = stacks.folded(LINES)
    assert len(found) == 4
    assert found[0] == (("run.py(3):_<module>", "model.py(10):_block", "model.py(4):_attention"), 30.0)


def test_a_frame_names_its_function_and_any_other_frame_stays_as_it_is():
    assert stacks.function_of("model.py(4):_attention") == "attention"
    assert stacks.function_of("torch/nn/modules/module.py(1779):__call_impl") == "_call_impl"
    assert stacks.function_of("<built-in_method_softmax>") == "<built-in_method_softmax>"


def test_time_under_a_function_adds_the_stacks_through_it():
    found = stacks.folded(LINES)
    assert stacks.time_under(found) == 105
    assert stacks.time_under(found, "block") == 100
    assert stacks.time_under(found, "attention") == 50
    assert stacks.time_under(found, "absent") == 0


def test_equal_stacks_merge_into_one_tree():
    root = stacks.merged(stacks.folded(LINES))
    assert root.value == 105
    block = root.children["run.py(3):_<module>"].children["model.py(10):_block"]
    assert block.value == 100
    assert {frame: node.value for frame, node in block.children.items()} == {
        "model.py(4):_attention": 50, "model.py(7):_feed_forward": 50}
