"""The one check every writer calls: the resolved target lies inside the root, or it is refused."""

from __future__ import annotations

import pytest
from miogen.common.confine import OutsideRoot, escapes, inside, is_inside


def test_a_path_inside_resolves_to_itself(tmp_path):
    target = tmp_path / "tests" / "test_m.py"
    assert inside(tmp_path, target, "tests-directory") == target.resolve()
    assert (
        inside(tmp_path, tmp_path / "a" / ".." / "tests" / "t.py", "x")
        == target.parent.resolve() / "t.py"
    )


@pytest.mark.parametrize("how", ["dotdot", "folder link", "file link", "link in a parent"])
def test_dotdot_and_symlinks_leading_out_are_refused_naming_the_setting(tmp_path, how):
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "deep").mkdir(parents=True)
    outside.mkdir()
    if how == "dotdot":
        target = root / ".." / "outside" / "test_m.py"
    elif how == "folder link":
        (root / "tests").symlink_to(outside)
        target = root / "tests" / "test_m.py"
    elif how == "file link":
        (root / "test_m.py").symlink_to(outside / "test_m.py")  # dangling still leads out
        target = root / "test_m.py"
    else:
        (root / "deep" / "up").symlink_to(tmp_path)
        target = root / "deep" / "up" / "outside" / "x" / "test_m.py"
    with pytest.raises(OutsideRoot, match=r"outside the project .*\(check tests-directory\)"):
        inside(root, target, "tests-directory")
    assert not is_inside(root, target)


def test_a_link_that_stays_inside_is_fine_and_the_root_itself_is_no_file(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "tests").symlink_to(tmp_path / "real")
    assert (
        inside(tmp_path, tmp_path / "tests" / "t.py", "s") == (tmp_path / "real" / "t.py").resolve()
    )
    with pytest.raises(OutsideRoot):
        inside(tmp_path, tmp_path / "tests" / "..", "s")


def test_a_folder_setting_that_climbs_out_by_its_dotdot_escapes():
    assert not escapes("tests") and not escapes("a/../tests") and not escapes("./t")
    assert escapes("..") and escapes("../outside") and escapes("a/../../x")
