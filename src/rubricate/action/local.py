"""Effects that stay on the runner (outputs, summary, annotations, log lines), and the dry run
that prints every effect instead of applying it (shell: the Actions runtime)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.effects import Annotate as AnnotateEffect
from rubricate.bot.effects import Effect, SetOutputs, effect_to_dict
from rubricate.bot.effects import Log as LogEffect


def apply_local(effect: Effect, runtime: ActionsRuntime) -> bool:
    """Apply an effect that stays on the runner (outputs, summary, annotations, log)."""
    if isinstance(effect, SetOutputs):
        runtime.set_outputs(effect.outputs)
        runtime.add_summary(effect.summary)
    elif isinstance(effect, AnnotateEffect):
        runtime.annotate(effect.level, effect.message, path=effect.path, line=effect.line)
    elif isinstance(effect, LogEffect):
        extra = f" {json.dumps(effect.extra, sort_keys=True, default=str)}" if effect.extra else ""
        runtime.log(effect.message + extra)
    else:
        return False
    return True


def print_effects(effects: Sequence[Effect], stream: TextIO, runtime: ActionsRuntime) -> None:
    """The dry run: every effect as one JSON line, secrets redacted; nothing is written."""
    for effect in effects:
        line = json.dumps(effect_to_dict(effect), sort_keys=False, default=str)
        stream.write(runtime.redact(line) + "\n")
    stream.flush()
