// The `tessera` program's usage texts and version string (the parsing is cli_args.cc).
#include <string>

#include "absl/strings/str_cat.h"
#include "host/tools/cli_args.h"
#include "tessera/plugin_api/common.h"

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "0.0.0"
#endif

namespace tessera {
namespace cli {

std::string ProgramUsage() {
  return R"(usage: tessera <command> [options]

Runs TensorFlow graphs (GraphDef .pb/.pbtxt, MetaGraphDef .meta, SavedModel folders) with
plugin devices and kernels.

commands:
  run       run one step of a graph: feed .npy files, print and save fetched tensors
            (in this process, or on a cluster with --server grpc://HOST:PORT)
  serve     run one task of a cluster: a master and a worker serving other tasks and clients
  plugins   list the plugins found, what they provide, and why any was rejected
  ops       list every op with its kernels per device type, or a graph's ops that cannot run
  show      print a SavedModel's tag-sets and signatures (or a MetaGraphDef's), with each input
            and output's dtype and shape

options:
  -h, --help      show this help ('tessera <command> --help' for a command's options)
  -V, --version   show the version of the program and of the plugin ABI

examples:
  tessera run examples/mlp/mlp.pb --feed x=examples/mlp/input.npy \
      --fetch probabilities --fetch predicted_class
  tessera serve --cluster 'worker=localhost:2222,localhost:2223' --job worker --task 0
  tessera ops --graph model.pb
  tessera show --saved-model export/1
  tessera run --saved-model export/1 --input x=x.npy --output-dir out
)";
}

std::string CommandUsage(const std::string& command) {
  if (command.empty()) return ProgramUsage();
  if (command == "run") {
    return R"(usage: tessera run GRAPH [options]
       tessera run --saved-model DIR [options]

Runs one step of GRAPH (a GraphDef: binary .pb or text .pbtxt; or a MetaGraphDef, .meta or
.meta.pbtxt, whose variables --checkpoint restores) and prints each fetched tensor: its name, type, shape and first
values.

With --saved-model, loads the SavedModel in DIR as TensorFlow's loader does (the MetaGraph of
--tag-set, its variables restored from DIR/variables, its assets fed, its init op run). Without
--fetch or --target it runs the signature --signature-def: --input feeds its inputs by key, and
every output is printed (and written to --output-dir as KEY.npy; keys that would share a file
are refused) under its key. With --fetch or
--target it runs those tensors and nodes by graph name, --feed and --input both feeding.

options:
  --saved-model DIR        run the SavedModel in folder DIR instead of GRAPH
  --tag-set TAG[,TAG...]   the SavedModel's MetaGraph with exactly these tags (default serve)
  --signature-def KEY      the signature --input and a run without --fetch use (default
                           serving_default)
  --input KEY=FILE.npy     feed the signature's input KEY with a .npy file (repeatable)
  --checkpoint PREFIX      with a .meta GRAPH: restore its variables from the checkpoint PREFIX
                           through its saver before the step
  --feed NAME=FILE.npy     feed tensor NAME ("node" or "node:k") with a .npy file (repeatable)
  --fetch TENSOR           fetch TENSOR ("node" or "node:k") (repeatable)
  --target NODE            run NODE without fetching anything from it (repeatable)
  --output-dir DIR         also write each fetch to DIR/<fetch>.npy, the fetch as given with
                           '/' and ':' replaced by '_' ('x' -> x.npy, 'a/b:1' -> a_b_1.npy;
                           DIR is created if missing; two fetches that would share a file are
                           refused)
  --plugin PATH            load the plugin manifest PATH, or every manifest in folder PATH,
                           before TESSERA_PLUGIN_PATH and the installed plugins (repeatable)
  --plugin-allow NAME[,NAME...]
                           load only these plugins; replaces the policy file's "allow"
                           (repeatable)
  --plugin-require-sha256  refuse plugins whose manifest has no sha256
  --plugin-prefer TYPE=NAME
                           let plugin NAME serve device type TYPE, whatever the ranking
                           (repeatable, one per type; replaces the file's choice for TYPE)
  --plugin-config FILE     read the plugin policy from FILE instead of TESSERA_PLUGIN_CONFIG
                           or /etc/tessera/plugins.json (see docs/plugins.md)
  --inter-op-threads N     threads that run graph nodes (0: one per core; the default)
  --intra-op-threads N     threads kernels may use (0: one per core; the default)
  --trace FILE.json        record every node the step runs and write a Chrome / Perfetto trace
                           to FILE.json (open it in chrome://tracing or ui.perfetto.dev)
  --log-device-placement   print "node (op): device" to stderr for every node when placing
  --soft-placement         place a node whose requested device cannot be had on another one
                           instead of failing
  --no-op-fusion           keep Conv2D / MatMul + BiasAdd (+ activation) as separate nodes
                           instead of fusing them (docs/op_fusion.md)
  --cpu-devices N          create N CPU devices, /device:CPU:0 to /device:CPU:N-1 (N >= 1;
                           default 1)
  --device-count TYPE=N    create N devices of TYPE (e.g. GPU=1; 0 creates none)
                           (repeatable, one per type)
  --device-option TYPE:KEY=VALUE  an option of TYPE's devices (e.g. GPU:allow_tf32=false;
                           repeatable)
  --timeout-ms N           cancel the step after N ms (DEADLINE_EXCEEDED); with --server it is
                           also the deadline of the step's calls (default: none locally, 60 s
                           on a cluster)
  --server SCHEME://HOST:PORT
                           run the step on a cluster, through the master of the task serving
                           at HOST:PORT (see 'tessera serve --help'), e.g. grpc://localhost:2222;
                           --plugin paths must provide the transport named by SCHEME
  -h, --help               show this help

At least one --fetch or --target is required, except with --saved-model. Exit status: 0 on
success, 1 when the run fails, 2 for a usage error.
)";
  }
  if (command == "serve") {
    return R"(usage: tessera serve --cluster SPEC --job NAME [--task N] [options]

Runs one task of a cluster: a master (the target of clients' sessions) and a worker (runs the
graph partitions placed on this task's devices), both behind one transport server bound to the
task's address in SPEC. Devices are named /job:NAME/replica:0/task:N/device:TYPE:K.

Once serving, it prints one line to stdout (and flushes it):
  tessera serve: TASK serving master and worker at HOST:PORT over TRANSPORT (devices: D, ...)
then serves until SIGTERM or SIGINT, stops (steps still running fail with UNAVAILABLE), prints
"tessera serve: stopped" and exits with status 0.

The cluster, job and task may come from TensorFlow's TF_CONFIG environment variable instead, as
Kubernetes tools (Kubeflow's TFJob) set it:
  TF_CONFIG='{"cluster": {"worker": ["host0:2222", "host1:2222"], "ps": ["host2:2222"]},
              "task": {"type": "worker", "index": 1}}'
When TF_CONFIG is set (not empty) and --cluster, --job or --task is missing, TF_CONFIG is read
and must be valid as a whole, its task one of its cluster's. Each of the three options given
replaces its part of TF_CONFIG ("cluster", task.type, task.index); with all three given,
TF_CONFIG is not read. Other keys ("environment", task.trial, ...) are ignored.

options:
  --cluster SPEC               the tasks of the cluster, job by job:
                               'worker=localhost:2222,localhost:2223;ps=localhost:2224'
                               (default: TF_CONFIG's "cluster")
  --job NAME                   this task's job in SPEC (default: TF_CONFIG's task.type)
  --task N                     this task's index in its job (default: TF_CONFIG's task.index,
                               else 0)
  --transport NAME             the transport plugin serving and connecting to tasks (default
                               grpc)
  --tls-cert FILE.pem          serve over TLS with this certificate chain (needs --tls-key)
  --tls-key FILE.pem           the certificate's private key
  --tls-ca FILE.pem            trust only peers whose certificates this CA signed (needs
                               --tls-cert and --tls-key)
  --call-timeout-ms N          deadline of every remote call this task makes (default 60000)
  --session-idle-timeout-ms N  close a client's session unused for N ms (default 600000)
  --step-idle-timeout-ms N     drop a step's state on this worker untouched for N ms (default
                               600000)
  --plugin PATH                load the plugin manifest PATH, or every manifest in folder PATH,
                               before TESSERA_PLUGIN_PATH and the installed plugins (repeatable)
  --plugin-allow NAME[,NAME...]
                               load only these plugins; replaces the policy file's "allow"
                               (repeatable)
  --plugin-require-sha256      refuse plugins whose manifest has no sha256
  --plugin-prefer TYPE=NAME    let plugin NAME serve device type TYPE, whatever the ranking
                               (repeatable, one per type; replaces the file's choice for TYPE)
  --plugin-config FILE         read the plugin policy from FILE instead of
                               TESSERA_PLUGIN_CONFIG or /etc/tessera/plugins.json
  --cpu-devices N              create N CPU devices (N >= 1; default 1)
  --device-count TYPE=N        create N devices of TYPE (repeatable, one per type)
  --device-option TYPE:KEY=VALUE  an option of TYPE's devices (repeatable)
  --inter-op-threads N         threads that run graph nodes (0: one per core; the default)
  --intra-op-threads N         threads kernels may use (0: one per core; the default)
  -h, --help                   show this help

Exit status: 0 after SIGTERM or SIGINT, 1 when the server cannot start (e.g. the address is in
use), 2 for a usage error.
)";
  }
  if (command == "plugins") {
    return R"(usage: tessera plugins [--json] [--plugin PATH]... [plugin policy options]

Lists every plugin found (explicit --plugin paths, then TESSERA_PLUGIN_PATH, then the installed
plugin folder), its state, what it provides and the reason for any rejection, and ranks the
providers of each device type. The plugin policy in force is listed with the source of each
setting, and every refusal or choice it makes names its source.

The plugin policy is read from --plugin-config FILE, else the file TESSERA_PLUGIN_CONFIG names,
else /etc/tessera/plugins.json when it exists, e.g.
  {"allow": ["cpu", "grpc"], "require_sha256": true, "prefer": {"GPU": "acme-gpu"}}
The options below override it setting by setting.

options:
  --json                         print the same as JSON
  --plugin PATH                  also consider the manifest PATH or the manifests in folder PATH
                                 (repeatable)
  --plugin-allow NAME[,NAME...]  load only these plugins; replaces the file's "allow"
                                 (repeatable)
  --plugin-require-sha256        refuse plugins whose manifest has no sha256
  --plugin-prefer TYPE=NAME      let plugin NAME serve device type TYPE, whatever the ranking
                                 (repeatable, one per type; replaces the file's choice for TYPE)
  --plugin-config FILE           read the plugin policy from FILE (it must exist)
  -h, --help                     show this help
)";
  }
  if (command == "ops") {
    return R"(usage: tessera ops [--json | --markdown] [--graph FILE] [--plugin PATH]...
                   [plugin policy options]

Loads the plugins and creates the devices as a session would, then lists every op Tessera
defines (standard and plugin ops) with, per device type, the kernels that run it, the plugin
that registered each and the types each takes; ops the host runs on every device (transfers,
control flow, variables, checkpoints) say so.

With --graph FILE, checks the graph instead: every node, and every node of its function library,
must use an op that is defined and that a device present has a kernel for, with the node's types.
Each op that cannot run is listed with why and the nodes that use it; the exit status is then 1.

options:
  --json                         print the same as JSON
  --markdown                     print the op list as a Markdown table
  --graph FILE                   check the ops of the GraphDef FILE (.pb or .pbtxt)
  --plugin PATH                  also consider the manifest PATH or the manifests in folder PATH
                                 (repeatable)
  --plugin-allow NAME[,NAME...]  load only these plugins (repeatable)
  --plugin-require-sha256        refuse plugins whose manifest has no sha256
  --plugin-prefer TYPE=NAME      let plugin NAME serve device type TYPE (repeatable)
  --plugin-config FILE           read the plugin policy from FILE (see 'tessera plugins --help')
  -h, --help                     show this help

Exit status: 0; 1 when the graph has ops that cannot run or plugins cannot be loaded; 2 for a
usage error.
)";
  }
  if (command == "show") {
    return R"(usage: tessera show --saved-model DIR [--tag-set TAG[,TAG...]] [--signature-def KEY]
       tessera show --meta-graph FILE [--signature-def KEY]

Prints what a SavedModel holds: each MetaGraph's tag-set, then each of its signatures with its
method and, per input and output, the key, dtype, shape and graph tensor. For a MetaGraphDef file
(.meta): its tags, saver, collections and signatures. Reads the files only: no plugin is loaded
and nothing runs.

options:
  --saved-model DIR        the SavedModel folder (saved_model.pb or saved_model.pbtxt)
  --meta-graph FILE        a MetaGraphDef file instead (binary or text)
  --tag-set TAG[,TAG...]   only the MetaGraph with exactly these tags
  --signature-def KEY      only this signature (of the MetaGraph tagged serve unless --tag-set
                           says otherwise)
  -h, --help               show this help

Exit status: 0 on success, 1 when the files cannot be read or what is asked is not in them, 2
for a usage error.
)";
  }
  return "";
}

std::string VersionString() {
  return absl::StrCat("tessera ", TESSERA_VERSION, " (plugin ABI ", TSR_ABI_VERSION_MAJOR, ".",
                      TSR_ABI_VERSION_MINOR, ")");
}

}  // namespace cli
}  // namespace tessera
