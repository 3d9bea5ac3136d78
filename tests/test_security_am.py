"""AMRMTokens (issue 21): the ApplicationMasterService serves a request only with the token of the attempt it names."""

from __future__ import annotations

import msgspec
import pytest
from security_helpers import AttackerAM, rejected_events, victim_and_attacker

from yarnball.actors._secretmanagers import password
from yarnball.launcher._outputs import security_summary
from yarnball.protocols import (
    AllocateRequest,
    AMRMToken,
    FinalApplicationStatus,
    FinishApplicationMasterRequest,
    RegisterApplicationMasterRequest,
    YarnApplicationState,
)
from yarnball.testing import assert_containers_conserved, captured_events


def _finish_undisturbed(cluster, victim, *, conserved: bool = True) -> None:  # type: ignore[no-untyped-def]
    """The victim's work ends as if nobody had attacked: every container SUCCESS, the app FINISHED/SUCCEEDED."""
    cluster.run(until_ms=600_000)
    assert sorted(s.exit_status for s in victim.statuses) == [0, 0]
    app = cluster.rm.apps[victim.application_id]
    assert app.state is YarnApplicationState.FINISHED and app.final_status is FinalApplicationStatus.SUCCEEDED
    assert len(app.attempts) == 1
    if conserved:
        assert_containers_conserved(cluster)


def test_the_rm_issues_one_amrm_token_per_attempt_and_the_am_carries_it() -> None:
    """Each attempt has its own signed token; the AM reads it from its launch context and its requests are served."""
    cluster, victim, attacker = victim_and_attacker()
    rm = cluster.rm
    for am in (victim, attacker):
        attempt = rm.attempts[am.attempt_id]
        assert am.amrm_token is not None and am.amrm_token == attempt.amrm_token
        assert am.amrm_token.application_attempt_id == am.attempt_id
        assert am.amrm_token.password == password(rm.secrets.amrm_key, am.amrm_token)
    assert victim.amrm_token != attacker.amrm_token
    assert security_summary(cluster) == {"rejected": 0, "rejected_by_reason": {}}


def test_tokens_follow_the_seed_not_the_clock() -> None:
    """The same seed draws the same keys and tokens (byte-identical runs); another seed draws other keys, so the
    same attempt's token gets another password."""
    first, v1, _ = victim_and_attacker()
    again, v2, _ = victim_and_attacker()
    other, v3, _ = victim_and_attacker(seed=6)
    assert v1.amrm_token == v2.amrm_token and first.rm.secrets.container_key == again.rm.secrets.container_key
    assert v1.attempt_id == v3.attempt_id and v1.amrm_token is not None and v3.amrm_token is not None
    assert v3.amrm_token.password != v1.amrm_token.password
    for kind in ("amrm_key", "nm_key", "container_key"):
        assert getattr(other.rm.secrets, kind) != getattr(first.rm.secrets, kind)


def _release_victims(attacker: AttackerAM, victim, token: AMRMToken | None) -> None:  # type: ignore[no-untyped-def]
    attacker.send_to_rm(
        AllocateRequest(
            application_attempt_id=victim.attempt_id,
            response_id=victim.response_id,
            release=tuple(victim.running),
            amrm_token=token,
        )
    )


@pytest.mark.parametrize(
    ("token_of", "exception", "wording", "reason"),
    [
        (
            "attacker",
            "InvalidApplicationMasterRequestException",
            "Unauthorized request to allocate.\nAMRMToken for application attempt : {attacker} was used for a "
            "request of application attempt : {victim}",
            "amrm_token_other_attempt",
        ),
        (None, "YarnException", "No AMRMToken found for user {victim}", "amrm_token_missing"),
        ("forged", "InvalidToken", "Invalid AMRMToken from {victim}", "amrm_token_invalid"),
    ],
)
def test_an_allocate_for_another_attempt_is_refused_and_releases_nothing(
    token_of: str | None, exception: str, wording: str, reason: str
) -> None:
    """Releasing the victim's containers under its attempt id, with the attacker's token, none or a forged one: the
    RM refuses with Hadoop's exception, the containers run on, and no completion of them reaches the attacker."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        token = {
            "attacker": attacker.amrm_token,
            None: None,
            "forged": AMRMToken(application_attempt_id=victim.attempt_id, key_id=1, password=b"guess"),
        }[token_of]
        victims = set(victim.running)
        heartbeat_before = cluster.rm.attempts[victim.attempt_id].last_heartbeat
        _release_victims(attacker, victim, token)
        cluster.run(until_ms=10_001)
        [refusal] = attacker.refusals
        assert refusal.exception == exception
        assert refusal.message == wording.format(attacker=attacker.attempt_id, victim=victim.attempt_id)
        assert set(victim.running) == victims and victims <= cluster.rm.live
        assert cluster.rm.attempts[victim.attempt_id].last_heartbeat == heartbeat_before  # not even a ping
        _finish_undisturbed(cluster, victim)
    assert not victims & attacker.completed_ids()
    [event] = rejected_events(events)
    assert event["reason"] == reason and event["request"] == "AllocateRequest"
    assert event["attempt"] == str(victim.attempt_id) and event["sender"] == attacker.id
    assert not any(e["event"] == "container_released" for e in events)
    assert security_summary(cluster) == {"rejected": 1, "rejected_by_reason": {reason: 1}}


def test_a_finish_for_another_attempt_is_refused() -> None:
    """Unregistering the victim's attempt with the attacker's token is refused: the victim finishes on its own, with
    its own final status and diagnostics."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        attacker.send_to_rm(
            FinishApplicationMasterRequest(
                application_attempt_id=victim.attempt_id,
                final_application_status=FinalApplicationStatus.FAILED,
                diagnostics="pwned",
                amrm_token=attacker.amrm_token,
            )
        )
        cluster.run(until_ms=10_001)
        assert [r.exception for r in attacker.refusals] == ["InvalidApplicationMasterRequestException"]
        assert "Unauthorized request to finish application master." in attacker.refusals[0].message
        _finish_undisturbed(cluster, victim)
    assert cluster.rm.apps[victim.application_id].diagnostics == ""
    assert [e["reason"] for e in rejected_events(events)] == ["amrm_token_other_attempt"]


def test_a_register_for_another_attempt_is_refused() -> None:
    """Registering (again) as the victim's attempt with the attacker's token is refused; the victim runs on."""
    with captured_events() as events:
        cluster, victim, attacker = victim_and_attacker()
        attacker.send_to_rm(
            RegisterApplicationMasterRequest(application_attempt_id=victim.attempt_id, amrm_token=attacker.amrm_token)
        )
        cluster.run(until_ms=10_001)
        assert [r.exception for r in attacker.refusals] == ["InvalidApplicationMasterRequestException"]
        _finish_undisturbed(cluster, victim)
    assert [e["request"] for e in rejected_events(events)] == ["RegisterApplicationMasterRequest"]


def test_a_token_altered_to_name_the_victim_fails_its_signature() -> None:
    """The attacker's own token with the victim's attempt id written in: the password no longer matches."""
    cluster, victim, attacker = victim_and_attacker()
    assert attacker.amrm_token is not None
    altered = msgspec.structs.replace(attacker.amrm_token, application_attempt_id=victim.attempt_id)
    _release_victims(attacker, victim, altered)
    cluster.run(until_ms=10_001)
    assert [r.message for r in attacker.refusals] == [f"Invalid AMRMToken from {victim.attempt_id}"]
    _finish_undisturbed(cluster, victim)


def test_an_attacker_posing_as_the_victim_in_its_own_heartbeats_gets_nothing() -> None:
    """An AM that swaps its attempt id for the victim's (keeping its own token) has every heartbeat refused, and the
    idle-heartbeat shortcut does not serve it either: the victim's response id and completions stay its own."""
    cluster, victim, attacker = victim_and_attacker()
    attacker.attempt_id = victim.attempt_id  # its heartbeats now name the victim's attempt
    cluster.run(until_ms=20_000)
    refusals = attacker.refusals
    assert len(refusals) >= 5 and {r.exception for r in refusals} == {"InvalidApplicationMasterRequestException"}
    _finish_undisturbed(cluster, victim, conserved=False)  # (the attacker, refused, never finishes)
    assert not set(s.container_id for s in victim.statuses) & attacker.completed_ids()


def test_a_refusal_reaches_events_jsonl_and_summary_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """As a CLI run writes them: the refusal is a request_rejected line of events.jsonl (with no token in it) and
    summary.json counts it under security."""
    import json

    from yarnball.actors import configure_logging
    from yarnball.actors._logging import close_logging
    from yarnball.launcher._outputs import MetricsRecorder, write_outputs

    configure_logging(json_path=tmp_path / "events.jsonl")
    try:
        cluster, victim, attacker = victim_and_attacker()
        recorder = MetricsRecorder(cluster, 1000)
        recorder.start()
        _release_victims(attacker, victim, attacker.amrm_token)
        cluster.run(until_ms=600_000)
        summary = write_outputs(tmp_path, cluster, recorder, wall_seconds=1.0, seed=5, plots=False)
    finally:
        close_logging()
    assert summary["security"] == {"rejected": 1, "rejected_by_reason": {"amrm_token_other_attempt": 1}}
    assert json.loads((tmp_path / "summary.json").read_text())["security"] == summary["security"]
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    [line] = [json.loads(x) for x in lines if '"request_rejected"' in x]
    assert line["actor"] == "rm" and line["exception_class"] == "InvalidApplicationMasterRequestException"
    assert not any("password" in x for x in lines)
