"""R6: the presets, house rules and the kernel's flag word."""

from __future__ import annotations

import dataclasses

import pytest

from shuangkou import PRESETS, Rules
from shuangkou import _reference as ref
from shuangkou import rules as rules_mod


def test_preset_table_of_r6():
    classic, baibian, jj, qianbian = (Rules.preset(n) for n in PRESETS)
    assert classic.wild_ranks == () and baibian.wild_ranks == (14,) == jj.wild_ranks
    assert qianbian.wild_ranks == (13, 14)
    assert not classic.star_bombs and baibian.star_bombs and jj.star_bombs and qianbian.star_bombs
    assert qianbian.uneven_chain_bombs and not baibian.uneven_chain_bombs
    assert qianbian.more_cards_bigger and not jj.more_cards_bigger
    assert qianbian.four_jokers_smallest_7star and not baibian.four_jokers_smallest_7star
    assert jj.partner_visible and not baibian.partner_visible and not qianbian.partner_visible
    assert classic.first_leader == "random"
    assert {baibian.first_leader, jj.first_leader, qianbian.first_leader} == {"revealed"}
    assert [r.scoring for r in (classic, baibian, jj, qianbian)] == list(PRESETS)
    # R8: escape = 3 x the 双扣 base (classic/baibian 4, jj 6), qianbian 15 units
    assert [r.escape_penalty for r in (classic, baibian, jj, qianbian)] == [12, 12, 18, 15]
    assert qianbian.held_bombs_score and not baibian.held_bombs_score
    assert qianbian.score_cap == 300 and baibian.score_cap is None


@pytest.mark.parametrize("alias, name", [("百变", "baibian"), ("火拼", "baibian"),
                                         ("千变", "qianbian"), ("经典", "classic"), ("JJ", "jj")])
def test_preset_aliases(alias, name):
    assert Rules.preset(alias) == Rules.preset(name)


def test_house_rules_and_validation():
    house = Rules.preset("baibian").replace(base_score=10, four_jokers_smallest_7star=True)
    assert house.base_score == 10 and house.four_jokers_smallest_7star
    assert Rules.from_dict(house.to_dict()) == house
    with pytest.raises(dataclasses.FrozenInstanceError):
        house.base_score = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match="unknown preset"):
        Rules.preset("guandan")
    with pytest.raises(ValueError, match="first_leader"):
        house.replace(first_leader="dealer")
    with pytest.raises(ValueError, match="scoring"):
        house.replace(scoring="bridge")
    with pytest.raises(ValueError, match="star_bombs"):
        Rules.classic().replace(uneven_chain_bombs=True)
    with pytest.raises(ValueError):
        house.replace(base_score=0)
    with pytest.raises(ValueError):
        house.replace(score_cap=-1)
    with pytest.raises(ValueError, match="unknown rules fields"):
        Rules.from_dict({**house.to_dict(), "colour": "red"})


def test_flag_bits_agree_with_the_reference():
    assert (rules_mod.FLAG_WILD_SJ, rules_mod.FLAG_WILD_BJ, rules_mod.FLAG_STARS,
            rules_mod.FLAG_UNEVEN, rules_mod.FLAG_MORE_CARDS_BIGGER,
            rules_mod.FLAG_FOUR_JOKERS_SMALLEST) == (ref.WILD_SJ, ref.WILD_BJ, ref.STARS,
                                                     ref.UNEVEN, ref.MORE_CARDS_BIGGER,
                                                     ref.FOUR_JOKERS_SMALLEST)
    assert Rules.preset("classic").flags == 0
    assert Rules.preset("baibian").flags == ref.WILD_BJ | ref.STARS
    assert Rules.preset("qianbian").flags == 0b111111
