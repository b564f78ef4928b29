"""The So, You've Been Cursed. report's recommendations, shown first: is each mode balanced on the base
board (the Wizard's win rate within a band of 50%), which Curse or Cure track length would balance it,
how far generated boards move it, how much the player policies beat the automata, and how long games
last. Every answer names the board (RECONSTRUCTED by default)."""

from __future__ import annotations

from typing import Any

from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.cursed.sensitivity import p_text
from cursedsim.report.village.data import VillageData
from cursedsim.report.village.figures import MODE_WORDS

#: A mode is called balanced when the Wizard's win rate is within this of 50%.
BALANCE_BAND = 0.05


def verdict(rate: float) -> str:
    """``balanced``, ``favours the Wizard`` or ``favours the Monster`` for the Wizard's win rate."""
    if abs(rate - 0.5) <= BALANCE_BAND:
        return "balanced"
    return "favours the Wizard" if rate > 0.5 else "favours the Monster"


def recommendations(data: VillageData) -> dict[str, Any]:
    """The recommendations as text (heading, title, columns, rows, labels, note)."""
    plan = data.plan
    rows = []
    pairings = data.pairings
    for mode, wizard, monster in plan.pairings:
        row = pairings[(pairings["wizard"] == wizard) & (pairings["monster"] == monster)]
        if not len(row):
            continue
        r = row.iloc[0]
        rows.append([f"is the {MODE_WORDS[mode]} balanced ({wizard} vs {monster})?",
                     verdict(r["wizard_rate"]), "Wizard win % [95% CI]",
                     percent_ci(r["wizard_rate"], r["wizard_ci_low"], r["wizard_ci_high"]), "-"])
    for r in data.balance.itertuples() if len(data.balance) else ():
        answer = (f"about {r.balance_length:.1f} spaces" if r.balanced_in_range else
                  f"none in {r.shortest}-{r.longest}")
        question = f"which {r.track.capitalize()} track length balances the {MODE_WORDS.get(r.mode, r.mode)}?"
        rows.append([question, answer,
                     f"Wizard win % at {r.shortest} and {r.longest} spaces (base {r.base_length})",
                     f"{100 * r.wizard_rate_shortest:.1f} / {100 * r.wizard_rate_longest:.1f}", "-"])
    gen = data.generated
    for mode in plan.study_modes:
        wizard, monster = plan.pairing(mode)
        part = gen[(gen["wizard"] == wizard) & (gen["monster"] == monster)]
        base, boards = part[part["kind"] == "base"], part[part["kind"] == "generated"]
        if not len(boards) or not len(base):
            continue
        b = base.iloc[0]
        rates = boards["wizard_rate"]
        outside = int(((rates < b["wizard_ci_low"]) | (rates > b["wizard_ci_high"])).sum())
        rows.append([f"does the board matter in the {MODE_WORDS[mode]}?",
                     f"{outside} of {len(boards)} generated boards outside the base board's interval",
                     "Wizard win %, generated boards (base)",
                     f"{100 * boards['wizard_rate'].min():.1f}-{100 * boards['wizard_rate'].max():.1f} "
                     f"({100 * b['wizard_rate']:.1f})", "-"])
    adv = data.advantage
    for side, policy in (("wizard", "planner"), ("monster", "glutton")):
        part = adv[(adv["side"] == side) & (adv["policy"] == policy)] if len(adv) else adv
        for r in part.itertuples():
            rows.append([f"how much does {policy} beat the {r.automaton} automaton against {r.opponent}?",
                         f"{'better' if r.diff > 0 else 'worse' if r.diff < 0 else 'the same'}"
                         f" ({'survives' if r.survives else 'does not survive'} Holm)",
                         f"{side} win % {policy} − {r.automaton} (points), paired",
                         points_ci(r.diff, r.ci_low, r.ci_high), p_text(r.p_holm)])
    lengths = data.length_summary
    parts = []
    for mode, wizard, monster in plan.pairings:
        s = lengths[(lengths["wizard"] == wizard) & (lengths["monster"] == monster)]
        if len(s):
            parts.append(f"{s.iloc[0]['median']} ({mode})")
    if parts:
        rows.append(["how long do games last?", f"median turns: {', '.join(parts)}", "unfinished % at most",
                     f"{100 * lengths['unfinished'].max():.2f}", "-"])
    note = (f"Balanced: the Wizard's win rate within {100 * BALANCE_BAND:g} points of 50% (figure 1). Track lengths: "
            "the base board with one track changed (figure 6), the balance point read by linear interpolation. "
            "Boards: generated boards that satisfy every constraint (figure 5). Player policies: paired on the same "
            f"games (figure 4); Holm p adjusted over figure 4's comparisons. Every number is on {data.board_text} "
            "unless it names another board.")
    return {"heading": "Recommendations", "title": f"{data.title}: recommendations ({data.board_tag})",
            "columns": ["question", "answer", "measured as", "value [95% CI]", "Holm p"], "rows": rows,
            "labels": 3, "note": note}


__all__ = ["BALANCE_BAND", "recommendations", "verdict"]
