#!/usr/bin/env bash
# Starts a cluster of three `tessera serve` tasks on loopback ports (ps 0, worker 0, worker 1),
# trains the digits MLP on it with tessera_train_distributed --compare (which also trains the same
# graph in a local session and compares the loss curves), and stops the servers however it ends.
#
#   examples/distributed/run_local_cluster.sh [tessera_train_distributed flags, e.g. --steps 100]
#
# Environment: TESSERA_BUILD_DIR (default: the repository's build/), TESSERA_SERVE_WAIT_S (how
# long to wait for each server's "serving" line; default 30), TESSERA_TRANSPORT (the transport of
# the servers and of the trainer's target: grpc, the default, or rdma). An --intra-op-threads N among the
# flags is given to the servers too. Exit status: the trainer's, or 1 when the cluster cannot start.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly script_dir
readonly build_dir="${TESSERA_BUILD_DIR:-${script_dir}/../../build}"
readonly tessera="${build_dir}/bin/tessera"
readonly trainer="${build_dir}/bin/tessera_train_distributed"
readonly wait_s="${TESSERA_SERVE_WAIT_S:-30}"
readonly transport="${TESSERA_TRANSPORT:-grpc}"

fail() {
  echo "run_local_cluster: $*" >&2
  exit 1
}

for program in "${tessera}" "${trainer}"; do
  [[ -x "${program}" ]] || fail "${program} is not built (ninja -C ${build_dir} tessera" \
    "tessera_train_distributed tessera_plugin_${transport})"
done

# The kernels' thread count must be the same in the servers and in the local session.
intra_op_threads=1
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  if [[ "${args[i]}" == "--intra-op-threads" && $((i + 1)) -lt ${#args[@]} ]]; then
    intra_op_threads="${args[i + 1]}"
  fi
done

log_dir="$(mktemp -d "${TMPDIR:-/tmp}/tessera-cluster.XXXXXX")"
pids=()

# SIGTERM every child (the servers, and the trainer while it runs), give them 5 s to exit, then
# SIGKILL what is left; always reaps them all. Runs from the EXIT trap.
# shellcheck disable=SC2317
stop_children() {
  local pid deadline
  for pid in "${pids[@]}"; do kill -TERM "${pid}" 2>/dev/null || true; done
  deadline=$((SECONDS + 5))
  for pid in "${pids[@]}"; do
    while kill -0 "${pid}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
  pids=()
  rm -rf "${log_dir}"
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Three distinct ports that nothing on this machine has open (listening or connected) now. Another
# process may still take one before the servers bind it; the server then fails to start and says
# so in its log, which is printed below.
used_ports() {
  local file address rest
  for file in /proc/net/tcp /proc/net/tcp6; do
    [[ -r "${file}" ]] || continue
    # Lines: "sl local_address rem_address ...", the local address as HEXIP:HEXPORT.
    while read -r _ address rest; do
      [[ "${address}" == *:* ]] && echo $((16#${address##*:}))
    done < <(tail -n +2 "${file}")
  done
  return 0
}
pick_ports() {
  local used port picked=()
  used=" $(used_ports | tr '\n' ' ') "
  while ((${#picked[@]} < 3)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [[ "${used}" == *" ${port} "* ]] && continue
    used+="${port} "
    picked+=("${port}")
  done
  echo "${picked[@]}"
}
read -r worker0_port worker1_port ps_port <<<"$(pick_ports)"
readonly cluster="worker=localhost:${worker0_port},localhost:${worker1_port};ps=localhost:${ps_port}"

start_server() {  # job task
  local log="${log_dir}/$1-$2.log"
  "${tessera}" serve --cluster "${cluster}" --job "$1" --task "$2" --transport "${transport}" \
    --intra-op-threads "${intra_op_threads}" >"${log}" 2>&1 </dev/null &
  pids+=($!)
}

# Waits for the "serving" line of the server `pid` writing `log`; prints the log and fails when
# the server exits first or the wait runs out.
wait_serving() {  # pid log
  local deadline=$((SECONDS + wait_s))
  until grep -q "serving" "$2" 2>/dev/null; do
    if ! kill -0 "$1" 2>/dev/null; then
      cat "$2" >&2
      fail "the server logging to $(basename "$2") exited before serving"
    fi
    if ((SECONDS >= deadline)); then
      cat "$2" >&2
      fail "the server logging to $(basename "$2") did not print 'serving' within ${wait_s} s"
    fi
    sleep 0.1
  done
  grep "serving" "$2"
}

echo "cluster: ${cluster} (transport ${transport})"
start_server ps 0
start_server worker 0
start_server worker 1
wait_serving "${pids[0]}" "${log_dir}/ps-0.log"
wait_serving "${pids[1]}" "${log_dir}/worker-0.log"
wait_serving "${pids[2]}" "${log_dir}/worker-1.log"

# In the background, so that a signal to this script interrupts `wait` at once (bash runs traps
# only between commands) and the trainer is stopped with the servers.
"${trainer}" --target "${transport}://localhost:${worker0_port}" --compare "$@" &
pids=("$!" "${pids[@]}")
status=0
wait "${pids[0]}" || status=$?
if ((status != 0)); then
  for log in "${log_dir}"/*.log; do
    echo "--- $(basename "${log}") ---" >&2
    tail -n 20 "${log}" >&2
  done
fi
exit "${status}"
