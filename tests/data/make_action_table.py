"""Write the golden file of the current action table version (run once per new version):
``python tests/data/make_action_table.py`` → ``tests/data/action_table_v<N>.json``.

The file freezes the table: ``tests/test_rl_actions.py`` fails if the code's table ever
differs from it. Never regenerate a released version's file: bump
``shuangkou.batch.ACTION_TABLE_VERSION`` instead."""

from __future__ import annotations

import pathlib

from shuangkou import batch

PRESETS = ("classic", "baibian", "jj", "qianbian")


def main() -> None:
    v = batch.ACTION_TABLE_VERSION
    lines = ["{", f'  "version": {v},',
             '  "columns": ["kind", "top", "width", "length", "stars", "size", "wilds"],',
             '  "presets": {']
    for i, preset in enumerate(PRESETS):
        rows = batch.action_table(preset).readings.tolist()
        body = ",\n".join("      " + str(r) for r in rows)
        lines.append(f'    "{preset}": [\n{body}\n    ]' + ("," if i < len(PRESETS) - 1 else ""))
    lines += ["  }", "}", ""]
    path = pathlib.Path(__file__).with_name(f"action_table_v{v}.json")
    path.write_text("\n".join(lines))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
