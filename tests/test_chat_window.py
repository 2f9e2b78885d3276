"""The chat view's window arithmetic on its own: which items are mounted, without Textual."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from openletta.ui.chat_window import (
    BEGINNING,
    EARLIER_BATCH,
    MAX_MOUNTED,
    OPENING_BATCH,
    PRUNE_SLACK,
    WINDOW_LEAD,
    ChatWindow,
    Move,
)

LIMIT = MAX_MOUNTED + PRUNE_SLACK
SCREENFUL = 5  # items that fill the view of window_of()


def following_window(count: int) -> ChatWindow[int]:
    """A window that followed the bottom while ``count`` items came one at a time."""
    window: ChatWindow[int] = ChatWindow()
    for number in range(count):
        window.append([number], following=True)
    return window


def check(window: ChatWindow[int]) -> None:
    assert 0 <= window.hidden_above <= window.mounted_end <= len(window.items)
    assert window.hidden_below == len(window.items) - window.mounted_end
    assert window.mounted_count == len(window.mounted)


# --- appending --------------------------------------------------------------------------------

def test_following_the_bottom_prunes_to_the_limit_once_past_the_slack() -> None:
    window = following_window(LIMIT)
    assert window.mounted == list(range(LIMIT))  # up to the slack, nothing goes
    move = window.append([LIMIT], following=True)
    assert move == Move(mount=[LIMIT], unmount=list(range(PRUNE_SLACK + 1)))
    assert window.mounted_count == MAX_MOUNTED
    assert window.hidden_above == PRUNE_SLACK + 1
    assert window.last_mounted == LIMIT and not window.hidden_below


def test_a_large_append_while_following_skips_its_oldest_items_too() -> None:
    window = following_window(5)
    move = window.append(list(range(5, 105)), following=True)
    assert move.unmount == list(range(5))
    assert move.mount == list(range(105 - MAX_MOUNTED, 105))
    assert window.hidden_above == 105 - MAX_MOUNTED
    check(window)


def window_keeping(kept: int, count: int) -> ChatWindow[int]:
    """A window that keeps ``kept`` items while following, after ``count`` came one by one."""
    window: ChatWindow[int] = ChatWindow(kept=lambda items: kept)
    for number in range(count):
        window.append([number], following=True)
    return window


def test_following_the_bottom_keeps_what_the_view_says_and_prunes_past_its_slack() -> None:
    window = window_keeping(3, 6)  # up to the slack (no more than what is kept), nothing goes
    assert window.mounted == list(range(6))
    move = window.append([6], following=True)
    assert move == Move(mount=[6], unmount=[0, 1, 2, 3])
    assert window.mounted == [4, 5, 6] and window.hidden_above == 4
    check(window)


def test_what_the_view_keeps_is_no_more_than_the_limit() -> None:
    window = window_keeping(1000, LIMIT)
    move = window.append([LIMIT], following=True)
    assert move == Move(mount=[LIMIT], unmount=list(range(PRUNE_SLACK + 1)))
    assert window.mounted_count == MAX_MOUNTED


def test_an_item_that_stays_is_not_pruned_nor_any_newer() -> None:
    window = window_keeping(3, 6)
    move = window.append([6], following=True, stays=lambda item: item == 2)
    assert move == Move(mount=[6], unmount=[0, 1])
    assert window.mounted == [2, 3, 4, 5, 6]
    check(window)
    window = window_keeping(3, 4)  # many new ones: none skipped while older ones stay
    move = window.append(list(range(4, 20)), following=True, stays=lambda item: item == 1)
    assert move == Move(mount=list(range(4, 20)), unmount=[0])
    assert window.mounted == list(range(1, 20))
    check(window)


def test_an_empty_window_opens_with_the_newest_batch() -> None:
    window: ChatWindow[int] = ChatWindow()
    move = window.append(list(range(500)), following=True)
    assert move.opening and not move.unmount
    assert move.mount == list(range(500 - OPENING_BATCH, 500))
    assert window.hidden_above == 500 - OPENING_BATCH
    assert window.can_fill_above
    small: ChatWindow[int] = ChatWindow()
    assert not small.append(list(range(OPENING_BATCH)), following=True).opening


def test_an_empty_window_opens_with_the_newest_screenful() -> None:
    window: ChatWindow[int] = ChatWindow(screenful=lambda items: 3)
    move = window.append(list(range(500)), following=True)
    assert move.opening and move.mount == [497, 498, 499]
    assert window.hidden_above == 497 and window.can_fill_above
    check(window)
    few: ChatWindow[int] = ChatWindow(screenful=lambda items: 0)  # at least one goes
    assert few.append([0, 1, 2, 3], following=True).mount == [3]
    many: ChatWindow[int] = ChatWindow(screenful=lambda items: 1000)  # the batch at most
    assert len(many.append(list(range(500)), following=True).mount) == OPENING_BATCH
    fits: ChatWindow[int] = ChatWindow(screenful=len)
    assert not fits.append([0, 1, 2], following=True).opening


def test_nothing_is_pruned_while_the_user_is_scrolled_up() -> None:
    window = following_window(LIMIT)
    move = window.append(list(range(LIMIT, LIMIT + 30)), following=False)
    assert move == Move(mount=list(range(LIMIT, LIMIT + 30)))
    assert window.mounted_count == LIMIT + 30


def test_new_items_wait_below_while_others_do() -> None:
    window = following_window(100)
    window.remount(0)
    waiting = window.hidden_below
    assert window.append([100, 101], following=True) == Move()
    assert window.hidden_below == waiting + 2
    assert window.mounted == list(range(MAX_MOUNTED))


# --- scrolling up and down --------------------------------------------------------------------

def test_scrolling_up_mounts_a_batch_and_unmounts_the_newest_beyond_the_limit() -> None:
    window = following_window(100)
    while window.mounted_count + EARLIER_BATCH <= LIMIT:  # up to the slack, nothing goes
        assert not window.show_above().unmount
        assert not window.hidden_below
    top = window.hidden_above
    move = window.show_above()
    assert move.mount == list(range(top - EARLIER_BATCH, top))
    assert window.mounted_count == MAX_MOUNTED
    assert move.unmount == list(range(100 - len(move.unmount), 100))
    assert window.hidden_below == len(move.unmount)
    check(window)


def test_an_item_that_stays_stays_mounted_with_everything_above_it() -> None:
    window = following_window(200)
    window.remount(100)
    window.show_above(PRUNE_SLACK)  # at the limit plus the slack now
    assert window.mounted_count == LIMIT
    move = window.show_above(stays=lambda item: item == 137)  # 124..139 would go
    assert move.unmount == [138, 139]
    assert window.last_mounted == 137 and window.hidden_below == 60 + 2


def test_scrolling_down_mounts_a_batch_and_unmounts_the_oldest() -> None:
    window = following_window(200)
    window.remount(0)
    move = window.show_below()
    assert move.mount == list(range(MAX_MOUNTED, MAX_MOUNTED + EARLIER_BATCH))
    assert not move.unmount  # within the slack
    window.show_below(PRUNE_SLACK)
    assert window.mounted_count == MAX_MOUNTED
    assert window.first_mounted == window.hidden_above == EARLIER_BATCH + PRUNE_SLACK
    check(window)


def test_scrolling_down_keeps_an_item_that_stays_with_everything_below_it() -> None:
    window = following_window(200)
    window.remount(0)
    window.show_below(PRUNE_SLACK)  # at the limit plus the slack now
    move = window.show_below(stays=lambda item: item == 3)  # in view: 0..15 would go
    assert move.unmount == [0, 1, 2]
    assert window.first_mounted == 3 and window.mounted_count == LIMIT + EARLIER_BATCH - 3
    check(window)


def test_reaching_the_oldest_item_asks_for_an_older_page_once() -> None:
    window = following_window(10)
    assert not window.hidden_above
    assert window.show_above() == Move()
    assert not window.ask_older_page(more_on_server=None)
    assert not window.ask_older_page(more_on_server=False)
    assert window.ask_older_page(more_on_server=True)
    assert window.earlier_label(more_on_server=True) == ("loading earlier messages…", "")
    assert not window.ask_older_page(more_on_server=True), "one is on its way"
    assert window.prepend([-2, -1])  # the window was at the top: show the page's newest
    assert not window.loading_earlier and window.hidden_above == 2
    assert not window.ask_older_page(more_on_server=True), "items wait above"
    assert window.show_above().mount == [-2, -1]
    assert window.ask_older_page(more_on_server=True)
    window.older_page_failed()
    assert window.earlier_label(more_on_server=True)[1] == "-failed"
    assert window.ask_older_page(more_on_server=True), "a failed page can be asked again"


def test_a_page_prepended_while_reading_further_down_waits_above() -> None:
    window = following_window(100)
    first, above = window.first_mounted, window.hidden_above
    assert above and not window.prepend([-1])
    assert window.first_mounted == first and window.hidden_above == above + 1


def test_the_earlier_row_says_what_is_above() -> None:
    window = following_window(3)
    assert window.earlier_label(more_on_server=None) == (BEGINNING, "")
    assert window.earlier_label(more_on_server=False) == (BEGINNING, "-beginning")
    assert "load earlier" in window.earlier_label(more_on_server=True)[0]
    window.unmount_all()
    assert window.earlier_label(more_on_server=False)[0].startswith("↑ 3 earlier items")


# --- jumping ----------------------------------------------------------------------------------

def window_of(count: int, screenful: int = SCREENFUL) -> ChatWindow[int]:
    """``count`` items, the newest mounted, in a view that ``screenful`` items fill."""
    window: ChatWindow[int] = ChatWindow(screenful=lambda items: min(len(items), screenful))
    window.append(list(range(count)), following=False)
    window.remount(count - MAX_MOUNTED)
    return window


def test_jumping_to_an_item_far_away_mounts_a_window_with_lead() -> None:
    window = window_of(200)
    assert window.reach(199) is None  # mounted already
    assert window.reach(-5) is None  # not an item
    assert window.reach(50) == ("window", 50)
    shown = window.mounted
    move = window.around(50)
    assert move == Move(mount=list(range(40, 40 + MAX_MOUNTED)), unmount=shown)
    assert window.mounted == move.mount
    window.around(199)  # pushed back: the window ends with the newest item
    assert window.mounted == list(range(200 - MAX_MOUNTED, 200))
    window.around(3)
    assert window.mounted == list(range(MAX_MOUNTED))
    tall = window_of(200, screenful=60)  # more than the limit: a screenful below it all the same
    tall.around(100)
    assert tall.mounted == list(range(100 - WINDOW_LEAD, 160))


def test_an_item_near_the_window_is_mounted_with_the_items_between() -> None:
    window = window_of(200)
    window.remount(100)
    assert window.reach(100 - MAX_MOUNTED) == ("above", MAX_MOUNTED)
    assert window.reach(99 - MAX_MOUNTED) == ("window", 99 - MAX_MOUNTED)
    end = window.mounted_end
    assert window.reach(end) == ("below", SCREENFUL)  # with a screenful from it on
    assert window.reach(end + MAX_MOUNTED - 1) == ("below", MAX_MOUNTED - 1 + SCREENFUL)
    assert window.reach(end + MAX_MOUNTED) == ("window", end + MAX_MOUNTED)


def test_an_item_without_a_screenful_mounted_below_it_gets_one() -> None:
    window = window_of(200)
    window.remount(100)
    end = window.mounted_end
    assert window.reach(end - SCREENFUL) is None  # it can go to the top of the view
    assert window.reach(end - 2) == ("below", SCREENFUL - 2)
    window.show_below(window.filling_below)
    assert window.mounted_end == end + SCREENFUL
    newest = window_of(50)  # nothing more below item 48: it cannot go higher
    assert newest.reach(48) is None and not newest.filling_below


def test_the_bottom_is_a_new_window_of_the_newest_batch() -> None:
    window = following_window(200)
    window.remount(0)
    move = window.bottom()
    assert move.unmount == list(range(MAX_MOUNTED))
    assert move.mount == window.mounted == list(range(200 - OPENING_BATCH, 200))
    assert not window.hidden_below


# --- removing ---------------------------------------------------------------------------------

def window_over_10_to_20() -> ChatWindow[int]:
    window: ChatWindow[int] = ChatWindow()
    window.append(list(range(30)), following=False)
    window.remount(10, 10)
    return window


def test_removing_above_the_window_moves_it_up() -> None:
    window = window_over_10_to_20()
    window.remove(3)
    assert (window.hidden_above, window.mounted_count, window.hidden_below) == (9, 10, 10)
    assert window.mounted == list(range(10, 20))


def test_removing_inside_the_window_shrinks_it() -> None:
    window = window_over_10_to_20()
    window.remove(15)
    assert (window.hidden_above, window.mounted_count, window.hidden_below) == (10, 9, 10)
    assert 15 not in window.mounted


def test_removing_below_the_window_leaves_it() -> None:
    window = window_over_10_to_20()
    window.remove(25)
    assert (window.hidden_above, window.mounted_count, window.hidden_below) == (10, 10, 9)


def test_clearing_puts_everything_above() -> None:
    window = window_over_10_to_20()
    window.unmount_all()
    assert (window.hidden_above, window.mounted_count, window.hidden_below) == (30, 0, 0)
    assert window.show_above().mount == list(range(30 - EARLIER_BATCH, 30))


# --- properties -------------------------------------------------------------------------------

class WindowMachine(RuleBasedStateMachine):
    """Random events on a small window, mirrored into the set of widgets a view would have.

    Each :class:`Move` is applied to ``widgets`` as the view applies it; the window must agree
    with it after every step. While the view has followed the bottom (no append while
    scrolled up, no busy item), at most ``limit + slack`` items are mounted.
    """

    def __init__(self) -> None:
        super().__init__()
        self.window: ChatWindow[int] = ChatWindow(limit=8, slack=3, batch=2, opening=5, lead=2,
                                                  screenful=lambda items: min(len(items), 3))
        self.widgets: list[int] = []
        self.next = 0
        self.oldest = 0
        self.bounded = True

    def apply(self, move: Move[int], *, overlap: bool = False) -> None:
        if not overlap:
            assert not set(move.mount) & set(move.unmount)
            assert not set(move.mount) & set(self.widgets)
        assert set(move.unmount) <= set(self.widgets)
        kept = [item for item in self.widgets if item not in move.unmount]
        self.widgets = sorted(kept + move.mount, key=self.window.items.index)

    @rule(count=st.integers(1, 20), following=st.booleans())
    def append(self, count: int, following: bool) -> None:
        new = list(range(self.next, self.next + count))
        self.next += count
        waiting = self.window.hidden_below
        self.bounded &= following or bool(waiting)
        self.apply(self.window.append(new, following=following))
        if not waiting:
            assert self.window.last_mounted == new[-1], "the newest is mounted at the bottom"

    @rule(count=st.integers(1, 6))
    def prepend(self, count: int) -> None:
        self.oldest -= count
        page = list(range(self.oldest, self.oldest + count))
        if self.window.prepend(page):
            self.apply(self.window.show_above())

    @precondition(lambda self: self.window.items)
    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(self.window.items))
        self.window.remove(item)
        if item in self.widgets:
            self.widgets.remove(item)

    @rule(stays=st.sets(st.integers(-50, 200), max_size=3))
    def scroll_up(self, stays: set[int]) -> None:
        move = self.window.show_above(stays=stays.__contains__)
        self.bounded &= not stays & set(self.window.mounted)
        self.apply(move)

    @rule(stays=st.sets(st.integers(-50, 200), max_size=3))
    def scroll_down(self, stays: set[int]) -> None:
        move = self.window.show_below(stays=stays.__contains__)
        self.bounded &= not stays & set(self.window.mounted)
        self.apply(move)

    @precondition(lambda self: self.window.items)
    @rule(data=st.data())
    def jump(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(self.window.items))
        reach = self.window.reach(item)
        if reach is None:
            assert item in self.widgets
            return
        side, number = reach
        if side == "above":
            self.apply(self.window.show_above(number))
        elif side == "below":
            self.apply(self.window.show_below(number))
        else:
            self.apply(self.window.around(number), overlap=True)
        assert item in self.window.mounted
        assert self.window.reach(item) is None, "a screenful below it is mounted too"

    @rule()
    def jump_to_bottom(self) -> None:
        self.apply(self.window.bottom(), overlap=True)
        assert not self.window.hidden_below

    @rule()
    def clear(self) -> None:
        self.window.unmount_all()
        self.widgets = []

    @invariant()
    def counters_agree(self) -> None:
        window = self.window
        assert 0 <= window.hidden_above <= window.mounted_end <= len(window.items)
        assert self.widgets == window.mounted
        assert window.hidden_above + window.mounted_count + window.hidden_below == \
            len(window.items)

    @invariant()
    def bounded_while_following(self) -> None:
        if self.bounded:
            assert self.window.mounted_count <= self.window.limit + self.window.slack


TestWindowMachine = WindowMachine.TestCase
TestWindowMachine.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=30))
def test_following_appends_keep_the_newest_mounted_within_bounds(sizes: list[int]) -> None:
    window: ChatWindow[int] = ChatWindow()
    total = 0
    for size in sizes:
        window.append(list(range(total, total + size)), following=True)
        total += size
        check(window)
        assert window.mounted_end == total and not window.hidden_below
        assert min(total, OPENING_BATCH) <= window.mounted_count <= LIMIT


def test_one_item_above_is_one_earlier_item() -> None:
    window = following_window(1)
    window.unmount_all()
    assert window.earlier_label(more_on_server=False)[0].startswith("↑ 1 earlier item (")
