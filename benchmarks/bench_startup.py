"""Start-up and command-line latency: seconds from launching
ovos-memory-service to its "memory service ready" log line (it answers from
then on) and to "semantic recall ready" (the model and the vectors loaded in
the background), and the wall time of ovos-memory commands with the daemon
stopped. Run on an idle machine: python benchmarks/bench_startup.py [runs]
"""
import os, subprocess, sys, time, tempfile, json, statistics
root = tempfile.mkdtemp()
port = 18000 + os.getpid() % 1000
env = {**os.environ, "HOME": root, "XDG_CONFIG_HOME": f"{root}/config", "XDG_DATA_HOME": f"{root}/data",
       "XDG_CACHE_HOME": f"{root}/cache"}
os.makedirs(f"{root}/config/mycroft", exist_ok=True)
json.dump({"websocket": {"host": "127.0.0.1", "port": port}, "memory_service": {"data_dir": f"{root}/memory"}},
          open(f"{root}/config/mycroft/mycroft.conf", "w"))
bus = subprocess.Popen(["ovos-messagebus"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(3)
ready, semantic = [], []
for run in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
    started = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "ovos_memory_service"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    got_ready = got_semantic = None
    for line in p.stdout:  # either line may come first: the model loads beside the bus connection
        if "memory service ready" in line and got_ready is None:
            got_ready = time.monotonic() - started
        if "semantic recall ready" in line and got_semantic is None:
            got_semantic = time.monotonic() - started
        if got_ready is not None and got_semantic is not None:
            break
    ready.append(got_ready)
    semantic.append(got_semantic)
    p.terminate(); p.wait()
bus.terminate()
commands = {"--help": ["--help"], "list --help": ["list", "--help"], "list": ["list"], "stats": ["stats"],
            "forget --id": ["forget", "--id", "0123456789ab", "--yes"], "export": ["export"], "search": ["search", "dog"]}
cli = {}
for name, args in commands.items():
    times = []
    for run in range(len(ready)):
        started = time.monotonic()
        subprocess.run(["ovos-memory", "--data-dir", f"{root}/memory", *args], env=env, capture_output=True)
        times.append(time.monotonic() - started)
    cli[name] = statistics.median(times)
print("ovos-memory, daemon stopped (median s): " + ", ".join(f"{k} {v:.2f}" for k, v in cli.items()))
print(f"ready: {[round(r, 2) for r in ready]} s (median {statistics.median(ready):.2f}); "
      f"semantic recall: {[round(s, 2) for s in semantic]} s")
