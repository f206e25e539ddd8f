"""Errors are Python exceptions with the CLI's messages and locations."""

import pytest

import thermocline
from thermocline import ConfigError, ThermoclineError


def test_unknown_names_are_config_errors():
    with pytest.raises(ConfigError, match='unknown manager "nope"'):
        thermocline.run(workload="multiphase", manager="nope")
    with pytest.raises(ConfigError, match="nope"):
        thermocline.run(workload="nope", manager="first-touch")
    with pytest.raises(ConfigError, match="reproduction"):
        thermocline.reproduce("no-such-figure")
    assert issubclass(ConfigError, ThermoclineError)


def test_a_config_file_error_carries_file_and_line(workdir):
    bad = workdir / "bad.toml"
    bad.write_text('[run]\nmanager = "first-touch"\nduration_s = "soon"\n')
    with pytest.raises(ConfigError) as e:
        thermocline.run(config=bad)
    assert e.value.file == str(bad)
    assert e.value.line == 3
    assert str(e.value).startswith(f"{bad}:3:")


def test_bad_values_are_refused_before_running():
    with pytest.raises(ConfigError, match="slowdown"):
        thermocline.run(workload="multiphase", manager="thermostat",
                        config={"thermostat.slowdown": -1})
    with pytest.raises(TypeError):
        thermocline.run(workload="multiphase", config={"metrics.window_s": object()})
