"""Every document the library writes, it reads back, and a hostile one stays bounded (issue
34): ``Match.from_json`` refused a match of ~400 deals that ``Match.to_json`` wrote (one
2,000,000-character cap for every document). A match's cap is now sized per deal it can hold
(documents.MAX_DEAL_DOCUMENT × MAX_MATCH_DEALS), a match holds at most MAX_MATCH_DEALS deals,
and a game document keeps its own bound."""

from __future__ import annotations

import json

import pytest

from shuangkou import Game, Match
from shuangkou import documents as docs
from shuangkou.errors import DocumentError, IllegalPlayError


def _play_out(game: Game) -> None:
    """Pass whenever allowed, else the first legal play: the most actions a deal cheaply has."""
    while not game.is_over:
        if game.can_pass():
            game.pass_()
        else:
            game.play(game.legal_plays()[0])


@pytest.fixture(scope="module")
def full_match() -> Match:
    m = Match("classic", 5)
    for _ in range(docs.MAX_MATCH_DEALS):
        _play_out(m.deal())
    return m


@pytest.fixture(scope="module")
def full_text(full_match: Match) -> str:
    return full_match.to_json()


def test_a_match_of_the_most_deals_reads_back(full_match: Match, full_text: str) -> None:
    assert len(full_text) > 2_000_000  # the old cap, which refused it
    back = Match.from_json(full_text)
    assert len(back.games) == docs.MAX_MATCH_DEALS and back.totals == full_match.totals
    assert back.to_json() == full_text


def test_each_deal_is_well_within_its_share_of_the_match_cap(full_match: Match) -> None:
    sizes = [len(g.to_json()) for g in full_match.games]
    assert max(sizes) < docs.MAX_DEAL_DOCUMENT / 2
    assert docs.MAX_MATCH_DOCUMENT == docs.MAX_MATCH_DEALS * docs.MAX_DEAL_DOCUMENT
    # a deal's game document, indented, is far inside a game document's own bound
    longest = full_match.games[sizes.index(max(sizes))]
    assert len(longest.to_json(indent=2)) < docs.MAX_DOCUMENT / 20


def test_a_full_match_deals_no_more(full_match: Match) -> None:
    with pytest.raises(IllegalPlayError, match="at most 1,000 deals"):
        full_match.deal()
    assert len(full_match.games) == docs.MAX_MATCH_DEALS  # unchanged


def test_a_match_document_of_more_games_is_refused(full_text: str) -> None:
    doc = json.loads(full_text[:10_000].partition('"games": [')[0] + '"games": []}')
    doc["games"] = [{}] * (docs.MAX_MATCH_DEALS + 1)  # refused by count, before any replay
    with pytest.raises(DocumentError, match="1,001 games, a match holds at most 1,000"):
        Match.from_json(json.dumps(doc))


def test_hostile_documents_are_refused_by_length_before_parsing() -> None:
    # not JSON at all: the length is what refuses it, before the parser runs
    with pytest.raises(DocumentError, match="match document too large: 32,000,001 characters"):
        Match.from_json("[" * (docs.MAX_MATCH_DOCUMENT + 1))
    with pytest.raises(DocumentError, match="game document too large: 2,000,001 characters"):
        Game.from_json("[" * (docs.MAX_DOCUMENT + 1))
    # a game document keeps its own, smaller bound
    with pytest.raises(DocumentError, match="too large"):
        Game.from_json(" " * (docs.MAX_DOCUMENT + 1) + "{}")
