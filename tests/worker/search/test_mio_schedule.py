"""MIO's linear parameter schedule (paper sec. 3.2) and the run budget it reads."""

import pytest
from miogen.worker.search import Budget, MioConfig, MioParameters


def test_start_values_at_the_beginning():
    assert MioConfig().at(0.0) == MioParameters(0.5, 10, 1)


def test_the_papers_example_pr_is_0_2_at_30_percent_with_f_0_5():
    assert MioConfig(focus_point=0.5).at(0.3).probability_random == pytest.approx(0.2)


@pytest.mark.parametrize("fraction", [0.5, 0.7, 1.0])
def test_focused_values_from_f_on(fraction):
    assert MioConfig().at(fraction) == MioParameters(0.0, 1, 10)


def test_integers_move_by_whole_steps_reaching_the_focused_value_exactly_at_f():
    config = MioConfig()
    assert config.at(0.25)[1:] == (6, 5)  # half way: 10 - 4.5 -> 6, 1 + 4.5 -> 5
    assert config.at(0.05)[1:] == (10, 1)  # 0.9 of a step: not moved yet
    assert config.at(0.4999)[1:] == (2, 9)  # the last step is taken only at F


def test_values_move_monotonically():
    steps = [MioConfig().at(i / 100) for i in range(101)]
    for before, after in zip(steps, steps[1:], strict=False):
        assert after.probability_random <= before.probability_random
        assert after.population_size <= before.population_size
        assert after.mutations >= before.mutations


def test_f_zero_is_focused_from_the_start_and_f_one_only_at_the_end():
    assert MioConfig(focus_point=0.0).at(0.0) == MioParameters(0.0, 1, 10)
    assert MioConfig(focus_point=1.0).at(0.5) == MioParameters(0.25, 6, 5)


def test_custom_pairs():
    config = MioConfig(probability_random=(1.0, 0.2), population_size=(4, 2), mutations=(2, 2))
    assert config.at(0.25) == MioParameters(pytest.approx(0.6), 3, 2)


@pytest.mark.parametrize(
    "kwargs", [{"focus_point": 1.5}, {"population_size": (0, 1)}, {"mutations": (1, 0)}]
)
def test_invalid_configurations_are_refused(kwargs):
    with pytest.raises(ValueError):
        MioConfig(**kwargs)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_evaluation_budget():
    budget = Budget(evaluations=4)
    budget.start()
    for _ in range(3):
        budget.record_evaluation()
    assert (budget.evaluations_used, budget.fraction_used(), budget.exhausted()) == (3, 0.75, False)
    budget.record_evaluation()
    assert budget.exhausted()


def test_a_time_budget_reads_the_clock_from_start():
    clock = FakeClock()
    budget = Budget(seconds=10, clock=clock)
    assert budget.elapsed == 0.0 and not budget.started
    budget.start()
    clock.now += 2.5
    assert (budget.elapsed, budget.fraction_used(), budget.exhausted()) == (2.5, 0.25, False)
    clock.now += 7.5
    assert budget.exhausted()


def test_whichever_limit_ends_first_counts():
    clock = FakeClock()
    budget = Budget(seconds=10, evaluations=100, clock=clock)
    budget.start()
    clock.now += 3.0
    for _ in range(50):
        budget.record_evaluation()
    assert budget.fraction_used() == 0.5
    clock.now += 5.0
    assert budget.fraction_used() == 0.8
    clock.now += 50.0
    assert budget.fraction_used() == 1.0 and budget.exhausted()


def test_zero_limits_are_spent_at_once_and_no_limits_never():
    assert Budget(evaluations=0).exhausted()
    assert Budget(seconds=0).fraction_used() == 1.0
    unlimited = Budget()
    unlimited.start()
    unlimited.record_evaluation()
    assert unlimited.fraction_used() == 0.0 and not unlimited.exhausted()


def test_negative_limits_are_refused():
    with pytest.raises(ValueError):
        Budget(seconds=-1)
    with pytest.raises(ValueError):
        Budget(evaluations=-1)
