#!/bin/sh
# gpuaudit-healthcheck.sh - Slurm HealthCheckProgram: check this node against
# its class in the golden-image policy; drain it when the check fails, resume
# it when the check passes again, but only if gpuaudit drained it (the drain
# reason starts with "gpuaudit:"), so an admin's manual drain is never undone.
#
#   slurm.conf:  HealthCheckProgram=/usr/libexec/gpuaudit/gpuaudit-healthcheck.sh
#                HealthCheckInterval=300
#                HealthCheckNodeState=ANY
#
# Environment (all optional):
#   GPUAUDIT            gpuaudit binary (default: gpuaudit on PATH)
#   GPUAUDIT_POLICY     policy file (default /etc/gpuaudit/policy.yaml)
#   GPUAUDIT_CHECK_ARGS extra arguments for `gpuaudit check` (word-split)
#   GPUAUDIT_NODENAME   Slurm node name (default: hostname -s)
#   GPUAUDIT_HEALTH_STATE  when set (e.g. /var/lib/gpuaudit/health-state.json),
#                       also run `gpuaudit health --slurm --state FILE` after a
#                       passing check: a raised (sticky) condition drains the node
#                       with its action first ("gpuaudit: replace GA-XID-48 ...")
#                       and keeps it drained after reboots until it clears or an
#                       admin runs `gpuaudit health --state FILE --clear CODE|all`
#   GPUAUDIT_HEALTH_ARGS extra arguments for `gpuaudit health` (word-split;
#                       default --since 10m)
#
# Exit status: gpuaudit's (0 pass, 1 drained, 2 bad policy, 3 vendor library
# unavailable, 4 unknown: evidence missing, e.g. health could not read the
# kernel log). Unknown never drains and never resumes: the node stays as it is
# and the reason ("gpuaudit: unknown: ...") goes to the log. Slurm kills a
# health check after 60 s; the check itself is bounded by --timeout and by
# `timeout 50` here.
set -u
GPUAUDIT=${GPUAUDIT:-gpuaudit}
POLICY=${GPUAUDIT_POLICY:-/etc/gpuaudit/policy.yaml}
NODE=${GPUAUDIT_NODENAME:-$(hostname -s)}
TAG="gpuaudit:"

log() { echo "gpuaudit-healthcheck: $*" >&2; }

# shellcheck disable=SC2086 # GPUAUDIT_CHECK_ARGS is a list of words on purpose
out=$(timeout 50 "$GPUAUDIT" check --slurm --timeout 10 --policy "$POLICY" ${GPUAUDIT_CHECK_ARGS:-})
rc=$?
if [ "$rc" -eq 0 ] && [ -n "${GPUAUDIT_HEALTH_STATE:-}" ]; then
	# shellcheck disable=SC2086 # GPUAUDIT_HEALTH_ARGS is a list of words on purpose
	out=$(timeout 50 "$GPUAUDIT" health --slurm --timeout 10 --policy "$POLICY" \
		--state "$GPUAUDIT_HEALTH_STATE" ${GPUAUDIT_HEALTH_ARGS:---since 10m})
	rc=$?
fi

# The node's current drain reason ("" when none): `Reason=TEXT [user@time]`.
current_reason() {
	scontrol show node "$NODE" 2>/dev/null | sed -n 's/^[[:space:]]*Reason=//p' | head -n 1
}

case $rc in
0)
	reason=$(current_reason)
	case $reason in
	"$TAG"*)
		log "check passes again: resuming $NODE (was: $reason)"
		scontrol update nodename="$NODE" state=resume
		;;
	esac
	;;
1)
	reason=$(printf '%s\n' "$out" | head -n 1)
	[ -n "$reason" ] || reason="$TAG check failed"
	current=$(current_reason)
	case $current in
	"" | "$TAG"* | "(null)"*)
		log "draining $NODE: $reason"
		scontrol update nodename="$NODE" state=drain reason="$reason"
		;;
	*)
		log "check fails ($reason) but $NODE is already drained by someone else: $current"
		;;
	esac
	;;
4)
	# the evidence was missing (health: the kernel log unreadable): not a
	# verdict either way, so neither drain nor resume; say why
	log "gpuaudit could not conclude (${out:-no reason given}); $NODE left as it is"
	;;
*)
	# bad policy, vendor library unavailable, timeout: not this node's fault
	# for certain, so leave its state alone and say why
	log "gpuaudit check exited $rc; node state left unchanged"
	;;
esac
exit "$rc"
