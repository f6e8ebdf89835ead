"""Follow the presenter, in the app: lead a room, join it, follow changes, stop on one's own
change and follow again; forged codes, refused values and presenter mode stay out; rooms
close after idle hours, and a server opens only so many."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import rooms
from bert_embeddings.figures import settings
from components.rooms import follow
from components.rooms import lead as lead_module
from testkit.apptest import ROOT, lead, messages, page_title, room_fields, session, shown

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


def on_the_page(at: AppTest) -> str:
    """The messages of the page's main area, where a phone shows them (its sidebar is folded)."""
    return " ".join(shown(m.value) for m in [*at.main.error, *at.main.warning, *at.main.info])


@pytest.mark.slow("a leader and followers in AppTests")
def test_a_follower_sees_the_leaders_page_and_settings_and_each_change():
    leader, code = lead()
    assert code in " ".join(m.value for m in leader.markdown)
    leader.switch_page("pages/neighbours.py").run()
    leader.text_input(key=settings.NB_WORD).set_value("bank").run()
    follower = session({"follow": code})
    assert not follower.exception
    assert page_title(follower) == "Nearest neighbours in the vocabulary"
    assert follower.text_input(key=settings.NB_WORD).value == "bank"
    # the leader changes k and then the page: the follower's next poll brings each
    leader.number_input(key=settings.NB_K).set_value(20.0).run()
    follower.run()
    assert follower.number_input(key=settings.NB_K).value == 20.0
    leader.switch_page("pages/maps.py").run()
    leader.text_input(key=settings.PCA_HIGHLIGHT).set_value("^king").run()
    follower.run()
    assert page_title(follower) == "Maps" and follower.text_input(key=settings.PCA_HIGHLIGHT).value == "^king"


def test_a_followers_own_change_stops_following_and_follow_again_returns():
    leader, code = lead()
    leader.switch_page("pages/neighbours.py").run()
    follower = session({"follow": code})
    assert room_fields(follower)[follow.FOLLOW] == code
    follower.text_input(key=settings.NB_WORD).set_value("river").run()
    assert follow.FOLLOW not in room_fields(follower)
    assert f"You stepped away from room {code}" in on_the_page(follower)
    leader.text_input(key=settings.NB_WORD).set_value("queen").run()
    follower.run()
    assert follower.text_input(key=settings.NB_WORD).value == "river"  # not following any more
    follower.button(key="room_again").click().run()
    follower.run()
    assert follower.text_input(key=settings.NB_WORD).value == "queen"


def test_a_run_the_server_starts_on_the_leaders_new_page_is_not_the_followers_own_change(monkeypatch):
    """The server reruns a follower on the room's new page (components/rooms/room_wake.py), before
    the run has applied the new view: a page that differs from the view applied last is then the
    room's step, not the follower's. The same run without the server's mark is the follower's."""
    from components.rooms import room_wake

    leader, code = lead()
    followers = [session({"follow": code}) for _ in range(3)]
    leader.switch_page("pages/tokens.py").run()
    woken, own, behind = followers
    monkeypatch.setattr(room_wake, "begun", lambda: (code, 2, threading.Event()))
    for follower in (woken, behind):
        follower.switch_page("pages/tokens.py").run()
        assert room_fields(follower)[follow.FOLLOW] == code and page_title(follower) == "Tokens"
        assert room_fields(follower)[follow.APPLIED][1]["page"] == "tokens"
    monkeypatch.setattr(room_wake, "begun", lambda: None)
    own.query_params.clear()  # (Streamlit's navigation keeps none of the page's own parameters)
    own.switch_page("pages/segments.py").run()
    assert follow.FOLLOW not in room_fields(own)  # a page of one's own: stopped following
    # The browser reruns the page it still shows, from that page's address, which follows the room
    # (back from a lost connection, while the server drew the room's next page): not the follower's
    # step, the room's page comes back.
    behind.query_params["follow"] = code
    behind.switch_page("pages/concepts.py").run()
    assert room_fields(behind)[follow.FOLLOW] == code and page_title(behind) == "Tokens"


@pytest.mark.slow("a leader and followers in AppTests")
def test_a_forged_or_stale_code_gets_a_message():
    for code in ("ZZZZZZ", "<a href='x'>", "1" * 300):
        follower = session({"follow": code})
        assert not follower.exception
        assert "could not be used" in messages(follower) or "no open room" in on_the_page(follower)
    leader, code = lead()
    follower = session({"follow": code})
    leader.button(key="room_close").click().run()
    follower.run()  # a follower of the room: told it was closed, not that the code is wrong
    assert f"Room {code} was closed by its leader" in on_the_page(follower)
    assert "check the code" not in messages(follower)
    latecomer = session({"follow": code})
    assert f"Room {code} was closed by its leader" in on_the_page(latecomer)
    latecomer.button(key="room_dismiss").click().run()
    assert "closed by its leader" not in messages(latecomer)


def test_a_follower_never_gets_what_a_link_would_refuse_nor_presenter_mode():
    leader, code = lead()
    _, token = room_fields(leader)[follow.LEAD]
    # a view no leader's page would publish: a folder on the server, and a k out of range
    follow.store().show(code, token, {"page": "tokens", "model": "/etc", "k": "500"})
    follower = session({"follow": code})
    assert not follower.exception and page_title(follower) == "Tokens"
    assert follower.session_state[settings.MODEL_KEY] != settings.OTHER
    assert follower.session_state[settings.NB_K] == settings.default(settings.NB_K)
    leader.switch_page("pages/tokens.py").run()
    leader.toggle(key=settings.PRESENTER_KEY).set_value(True).run()
    follower.run()
    assert not follower.session_state[settings.PRESENTER_KEY]


def test_a_presenter_key_decides_who_may_lead(monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_PRESENTER_KEY", "workshop-42")
    at = session()
    at.text_input(key="room_key").set_value("guess").run()
    at.button(key="room_open").click().run()
    assert follow.LEAD not in room_fields(at) and "presenter key" in messages(at)
    at.text_input(key="room_key").set_value("workshop-42").run()
    at.button(key="room_open").click().run()
    assert follow.LEAD in room_fields(at)


def test_a_room_idle_for_hours_closes_for_its_leader_and_followers(monkeypatch, tmp_path):
    # A store of this test's own: hours later, the store closes every idle room in its file, and
    # the run's shared file holds the rooms of tests running at the same time in other processes.
    from bert_embeddings.rooms.room_sqlite import SqliteRooms
    from components.rooms import roomstore

    monkeypatch.setattr(roomstore, "_store", SqliteRooms(tmp_path / "rooms.sqlite3"))
    leader, code = lead()
    follower = session({"follow": code})
    assert room_fields(follower)[follow.FOLLOW] == code
    later = time.time() + (rooms.IDLE_HOURS + 0.1) * 3600
    monkeypatch.setattr(follow.store(), "clock", lambda: later)
    follower.run()
    idle = f"Room {code} closed after {rooms.IDLE_HOURS:g} hours without a change"
    assert follow.FOLLOW not in room_fields(follower) and idle in on_the_page(follower)
    leader.text_area(key=settings.SENTENCE_A_KEY).set_value("A change after hours.").run()
    assert not leader.exception and follow.LEAD not in room_fields(leader)
    assert idle in messages(leader)


def test_a_server_opens_only_so_many_rooms(monkeypatch, tmp_path):
    # A store of this test's own, for one room: the process's store holds whatever rooms other
    # tests left open (and, made while one had set a presenter key, keeps rooms for presenters).
    from bert_embeddings.rooms.room_sqlite import SqliteRooms
    from components.rooms import roomstore

    monkeypatch.setattr(roomstore, "_store", SqliteRooms(tmp_path / "rooms.sqlite3", most=1))
    first, _ = lead()
    assert follow.LEAD in room_fields(first)
    second = session()
    second.button(key="room_open").click().run()
    assert not second.exception and follow.LEAD not in room_fields(second)
    assert "open rooms" in messages(second)
    first.button(key="room_close").click().run()
    second.button(key="room_open").click().run()
    assert follow.LEAD in room_fields(second)  # a closed room makes room for a new one


def test_join_uses_the_code_typed_just_before_the_click():
    """A code typed and then Join clicked at once (no Enter) joins that room, not the last one."""
    _, first = lead()
    _, second = lead()
    at = session()
    at.text_input(key=settings.ROOM_CODE).set_value(first).run()
    at.text_input(key=settings.ROOM_CODE).set_value(second)  # typed, not yet committed by a run
    at.button(key="room_join").click().run()
    assert room_fields(at)[follow.FOLLOW] == second


def test_the_room_section_stays_open_while_a_code_is_corrected():
    at = session()
    at.text_input(key=settings.ROOM_CODE).set_value("ABC12").run()
    at.button(key="room_join").click().run()
    assert "letters and digits" in messages(at)
    at.text_input(key=settings.ROOM_CODE).set_value("ABC123").run()  # the next run, no message
    section = next(e for e in at.sidebar.expander if e.label == "Workshop room")
    assert section.proto.expanded


def test_one_address_cannot_fill_the_server(monkeypatch):
    """ "Reload, then lead a new room" again and again from one address: refused with a message
    once it has opened OPENS_PER_CLIENT rooms in the window; another address still can."""
    monkeypatch.setattr(lead_module, "client_address", lambda: "192.0.2.7")
    for _ in range(rooms.OPENS_PER_CLIENT):
        leader, _ = lead()
    again = session()
    again.button(key="room_open").click().run()
    assert follow.LEAD not in room_fields(again) and "limit for one address" in messages(again)
    monkeypatch.setattr(lead_module, "client_address", lambda: "192.0.2.8")
    again.button(key="room_open").click().run()
    assert follow.LEAD in room_fields(again)


@pytest.mark.slow("every page, led and followed")
def test_settings_that_links_once_left_out_reach_followers():
    """Compare's word and k, Context's word: what the leader types there, followers see."""
    leader, code = lead()
    leader.switch_page("pages/compare.py").run()
    follower = session({"follow": code})
    leader.text_input(key=settings.CMP_WORD).set_value("river").run()
    leader.number_input(key=settings.CMP_K).set_value(25.0).run()
    follower.run()
    assert page_title(follower) == page_title(leader)
    assert follower.text_input(key=settings.CMP_WORD).value == "river"
    assert follower.number_input(key=settings.CMP_K).value == 25.0
    leader.switch_page("pages/context.py").run()
    leader.text_input(key=settings.CTX_WORD).set_value("the").run()
    follower.run()
    assert follower.text_input(key=settings.CTX_WORD).value == "the"


@pytest.mark.slow("a leader and followers in AppTests")
def test_a_view_replaced_before_it_was_drawn_is_applied_again_not_taken_for_the_followers_own():
    """The cause of lost followers: the run that applied the leader's new view was replaced
    (by the follower's own periodic rerun) before it ended, and the replacing run carried the
    browser's older value. That is not the follower's change: the view is applied again."""
    leader, code = lead()
    leader.switch_page("pages/neighbours.py").run()
    follower = session({"follow": code})
    leader.text_input(key=settings.NB_WORD).set_value("bank").run()
    follower.run()
    drawn = room_fields(follower)[follow.DRAWN]
    leader.text_input(key=settings.NB_WORD).set_value("river").run()
    # as if the run applying "river" had been replaced at once: applied, never drawn, and the
    # browser's next message still holding "bank"
    newest = follow.store().look(code)
    room_fields(follower)[follow.APPLIED] = (newest.version, newest.view)
    room_fields(follower)[follow.DRAWN] = drawn
    follower.session_state[settings.NB_WORD] = "bank"
    follower.run()
    assert room_fields(follower)[follow.FOLLOW] == code
    assert follower.text_input(key=settings.NB_WORD).value == "river"
    assert room_fields(follower)[follow.DRAWN] == newest.version


def test_runs_tells_a_run_replaced_before_its_end_from_a_page_that_ended():
    """components/frame/runs.py leans on Streamlit's private RerunException: this fails loudly if an
    upgrade changes how a replaced run ends."""

    def script():
        import streamlit as st

        from components.frame import runs

        st.session_state.setdefault("runs", 0)
        st.session_state.setdefault("drawn", [])

        def page():
            st.session_state.runs += 1
            if st.session_state.runs == 1:
                st.rerun()  # this run is replaced by the next
            if st.session_state.runs == 2:
                st.stop()  # a page that ends on purpose counts as drawn

        def drawn():
            st.session_state.drawn = [*st.session_state.drawn, st.session_state.runs + 1]  # this run

        def replaced():
            st.session_state.drawn = st.session_state.drawn[:-1]

        runs.run_to_the_end(page, drawn, replaced)

    at = AppTest.from_function(script).run()
    while at.session_state["runs"] < 3:
        at.run()
    assert at.session_state["drawn"] == [2, 3]


def test_a_long_sentence_and_what_cannot_travel_reach_followers_in_words():
    leader, code = lead()
    long_text = "A sentence longer than any link may carry. " * 60
    leader.text_area(key=settings.SENTENCE_A_KEY).set_value(long_text).run()
    follower = session({"follow": code})
    assert follower.text_area(key=settings.SENTENCE_A_KEY).value == long_text
    assert follow.FOLLOW in room_fields(follower)


@pytest.mark.slow("a leader and followers in AppTests")
def test_followers_read_in_words_what_the_room_cannot_carry():
    """The leader types k=500 (the page refuses it) and picks a folder on the server: the
    followers keep the defaults, and their page says which settings differ and why."""
    leader, code = lead()
    leader.switch_page("pages/neighbours.py").run()
    follower = session({"follow": code})
    leader.number_input(key=settings.NB_K).set_value(500.0).run()
    follower.run()
    assert follower.number_input(key=settings.NB_K).value == settings.default(settings.NB_K)
    told = on_the_page(follower)
    assert "Except what the room cannot carry" in told and "k (" in told
    leader.session_state[settings.MODEL_KEY] = settings.OTHER
    leader.session_state[settings.CUSTOM_MODEL_KEY] = str(ROOT)
    leader.run()
    follower.run()
    assert "folder on this server" in messages(follower)
    assert follower.session_state[settings.MODEL_KEY] != settings.OTHER
    leader.number_input(key=settings.NB_K).set_value(12.0).run()
    leader.session_state[settings.MODEL_KEY] = follower.session_state[settings.MODEL_KEY]
    leader.run()
    follower.run()
    assert "Except what the room cannot carry" not in messages(follower)  # nothing differs now


def test_another_tab_of_the_leaders_browser_offers_the_room_but_never_takes_it_over(monkeypatch):
    """The cookie names the room this browser leads: a new tab (a preview, a projector window)
    offers to lead it again with a button, and leads only once it is clicked."""
    leader, code = lead()
    _, token = room_fields(leader)[follow.LEAD]
    long_text = "A sentence longer than any link may carry. " * 60
    leader.text_area(key=settings.SENTENCE_A_KEY).set_value(long_text).run()
    leader.switch_page("pages/segments.py").run()
    monkeypatch.setattr(lead_module, "_cookie", lambda: f"{code}.{token}")
    other = session()
    assert follow.LEAD not in room_fields(other)
    other.button(key="room_take_back").click().run()
    assert room_fields(other)[follow.LEAD] == (code, token)
    assert f"You lead room {code} again" in " ".join(s.value for s in other.success)
    # the room's view comes with it, sentence and page: its address never held that sentence
    assert other.session_state[settings.SENTENCE_A_KEY] == long_text
    assert page_title(other).startswith("Segments")
    assert follow.store().look(code).view["a"] == long_text  # and it published nothing else
    monkeypatch.setattr(lead_module, "_cookie", lambda: f"{code}.wrong-token")
    assert "room_take_back" not in [b.key for b in session().button]


def test_a_rooms_view_written_thousands_deep_by_another_is_a_message_and_the_leader_replaces_it(
    monkeypatch, tmp_path
):
    """Something other than the app wrote the room's view into its store: 5,000 nested arrays,
    on which json runs out of stack. Its follower and a newcomer read why, as the store names
    it, and their pages go on; the leader's next change replaces it, and the room is joined."""
    import sqlite3

    from bert_embeddings.rooms.room_sqlite import SqliteRooms
    from components.rooms import roomstore

    path = tmp_path / "rooms.sqlite3"
    monkeypatch.setattr(roomstore, "_store", SqliteRooms(path))
    leader, code = lead()
    leader.switch_page("pages/neighbours.py").run()
    follower = session({"follow": code})
    assert room_fields(follower)[follow.FOLLOW] == code
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE rooms SET view = ? WHERE code = ?", ('{"a": ' + "[" * 5_000 + "]" * 5_000 + "}", code)
        )
    with pytest.raises(rooms.RoomError) as raised:
        follow.store().look(code)
    assert "nests 5,001 levels deep" in str(raised.value)
    follower.run()
    newcomer = session({"follow": code})
    for at in (follower, newcomer):
        assert not at.exception and str(raised.value) in messages(at)
        assert follow.FOLLOW not in room_fields(at)
    leader.text_input(key=settings.NB_WORD).set_value("bank").run()
    assert not leader.exception
    again = session({"follow": code})
    assert page_title(again) == "Nearest neighbours in the vocabulary"
    assert again.text_input(key=settings.NB_WORD).value == "bank"
