"""``tableside teach``: learn a piece set (an edition) from photos of the teach layout."""

from __future__ import annotations

import argparse
from pathlib import Path

from tableside.errors import UserError
from tableside.output import print_json

NAME = "teach"
ORDER = 25
HELP = "learn a piece set from photos of the teach layout"
DESCRIPTION = """\
Learn what your piecepack looks like under your light, from two photos of the teach layout
(docs/teach-layout.jpg), blocks from top to bottom:

  T  the 24 tiles face up: 4 rows (suns, moons, crowns, arms) of 6 (null, ace, 2, 3, 4, 5)
  V  the 24 coins value side up, in the same order
  P  the 4 pawns in suit order, and D the 4 dice in suit order (any face up) to their right

First photo: T, V, P and D. Second photo: the coins turned over (S, suit side up) in V's place, and, if you can,
the tiles turned over too (their backs). Leave a little space between the pieces; the spacing need not be
exact. The calibration sheet may lie beside the layout (or give --calibration).

  tableside teach photo1.jpg photo2.jpg --out set.json
  tableside teach photo1.jpg photo2.jpg --calibration table.json --out set.json --name "wooden set"
  tableside detect game.jpg --profile set.json

A block that is incomplete or out of order is refused with a message saying which; nothing is written then.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the teach layout")
    p.add_argument("--out", "-o", required=True, metavar="SET_JSON", help="the piece-set profile to write")
    p.add_argument("--calibration", metavar="TABLE_JSON", help="the table calibration (default: the sheet in each)")
    p.add_argument("--px-per-mm", type=float, metavar="N", help="the photos are top-down scans at N px per mm")
    p.add_argument("--name", help="a name for the set (default: the output file's name)")
    p.add_argument("--json", action="store_true", help="print what was learned as JSON")


def run(args: argparse.Namespace) -> int:
    from calibration.profile import save_profile
    from calibration.teach import build_profile
    from tableside.commands.detect import frame_calibration, read_frame
    from vision.detect import survey_teach_photo

    out = Path(args.out)
    if not out.parent.exists():
        raise UserError(f"folder {out.parent} does not exist (for {out.name})")
    if out.suffix.lower() != ".json":
        raise UserError(f"{out.name}: write the profile as a .json file")
    photos = []
    notes: list[str] = []
    for path in args.images:
        image = read_frame(path)
        calibration = frame_calibration(args, image, lambda text, p=path: notes.append(f"{Path(p).name}: {text}"))
        photos.append(survey_teach_photo(image, calibration, name=Path(path).name))
    profile = build_profile(photos, name=args.name or out.stem)
    save_profile(profile, out)
    report = {
        "profile": str(out),
        "name": profile.name,
        "photos": [p.name for p in photos],
        "tile_faces": len(profile.tile_faces.labels),
        "tile_backs": profile.tile_back is not None,
        "coin_values_show_suit": profile.taught.get("coin_value_ranks_showing_suit", []),
        "pawn_colors_bgr": {s.value: list(c) for s, c in profile.pawn_colors.items()},
        "die_colors_bgr": {s.value: list(c) for s, c in profile.die_colors.items()},
        "thresholds": {
            key: {"min_score": round(m.min_score, 3), "min_margin": round(m.min_margin, 3)}
            for key, m in (("tile_faces", profile.tile_faces), ("tile_back", profile.tile_back),
                           ("coin_values", profile.coin_values), ("coin_suits", profile.coin_suits))
            if m is not None
        },
    }
    if args.json:
        print_json(report)
        return 0
    for note in notes:
        print(note)
    backs = "tile backs taught" if profile.tile_back is not None else "tile backs NOT taught (add a photo of them)"
    shown = report["coin_values_show_suit"]
    values = ("coin values printed in suit colours" if len(shown) == 6 else
              f"coin values in one colour{' (aces in suit colours)' if shown == [1] else ''}")
    print(f"learned {profile.name!r} from {len(photos)} photo(s): 24 tile faces, {backs}; {values}; "
          "4 pawn and 4 die colours")
    print(f"wrote {out}")
    return 0
