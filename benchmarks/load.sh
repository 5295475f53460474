#!/usr/bin/env bash
# End-to-end load test: one small server per router (cmd/server), driven over
# loopback by a real load generator, peers interleaved in rounds so that the
# drift of a shared machine hits all of them alike. See README.md.
#
#   ./load.sh                      # 3 rounds, 10 s per run, bombardier -c30
#   ./load.sh --quick              # a few seconds: proves the pipeline works
#   ./load.sh --tool wrk --rounds 5 --duration 15
#   ./load.sh --tool autocannon --conns 1024
#   ./load.sh --proxy              # nginx in front of every server
#   ./load.sh --pin                # servers on core 0, load generator on core 1
set -euo pipefail

cd "$(dirname "$0")"

rounds=3
duration=10         # seconds per throughput run
cpu_requests=100000 # fixed request count for the CPU-per-request sample
tool=bombardier
conns=""            # default depends on the tool, see below
proxy=0
pin=0
peers="raw waltz httprouter chi gin echo servemux"
paths="root user"
port_base=18080

usage() {
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
	cat <<'EOF'
Flags:
  --quick            1 round, 1 s per run, 5000 requests per CPU sample
  --rounds N         rounds of all peers (default 3)
  --duration S       seconds per throughput run (default 10)
  --cpu-requests N   requests per CPU-time sample (default 100000)
  --tool T           bombardier (default), wrk, ab or autocannon
  --conns N          connections (defaults: bombardier 30, wrk 100 with 8
                     threads, ab 100, autocannon 40)
  --peers "a b"      servers to run (default: raw waltz httprouter chi gin echo servemux)
  --proxy            put nginx (Debian's package) in front of each server
  --pin              run servers (and nginx) on core 0 and the load generator
                     on core 1, so they stop trading cores between runs
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) rounds=1 duration=1 cpu_requests=5000 ;;
	--rounds) rounds=$2 && shift ;;
	--duration) duration=${2%s} && shift ;;
	--cpu-requests) cpu_requests=$2 && shift ;;
	--tool) tool=$2 && shift ;;
	--conns) conns=$2 && shift ;;
	--peers) peers=$2 && shift ;;
	--proxy) proxy=1 ;;
	--pin) pin=1 ;;
	-h | --help) usage && exit 0 ;;
	*) echo "load.sh: unknown flag $1" >&2 && usage >&2 && exit 2 ;;
	esac
	shift
done
case "$peers" in raw\ * | *\ raw\ * | *\ raw | raw) ;; *) peers="raw $peers" ;; esac

tmp=$(mktemp -d /tmp/waltz-load.XXXXXX)
pids=()
cleanup() {
	# Stop exactly the processes this script started, by PID.
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "load.sh: $*" >&2; }

# apt_install PKG: install a Debian package, refreshing the index only if the
# first attempt cannot find it.
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq "$1" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq "$1" >/dev/null; }
}

# Load generators: installed here, and only when missing.
autocannon_version=8.0.0
case "$tool" in
bombardier)
	# Pinned by the module's tool directive; built once so no run pays for
	# `go tool`'s staleness check.
	go build -o "$tmp/bombardier" github.com/codesenberg/bombardier
	: "${conns:=30}"
	;;
wrk)
	command -v wrk >/dev/null || apt_install wrk
	: "${conns:=100}"
	;;
ab)
	command -v ab >/dev/null || apt_install apache2-utils
	: "${conns:=100}"
	;;
autocannon)
	if ! command -v npx >/dev/null; then apt_install npm; fi
	# Fetch once now so the first measured run does not include the install.
	npx --yes "autocannon@$autocannon_version" --version >/dev/null
	: "${conns:=40}"
	;;
*) echo "load.sh: unknown tool $tool" >&2 && exit 2 ;;
esac
# The CPU-per-request sample always uses bombardier: it is the one generator
# that stops after an exact request count and needs nothing but Go.
[ -x "$tmp/bombardier" ] || go build -o "$tmp/bombardier" github.com/codesenberg/bombardier

# With --pin, every server-side process gets core 0 and every load generator
# core 1. taskset execs its command, so $! is still the server's own PID.
srv_pin=() gen_pin=()
if [ "$pin" = 1 ]; then
	if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
		srv_pin=(taskset -c 0) gen_pin=(taskset -c 1)
	else
		log "--pin needs taskset and 2 cores; running unpinned"
	fi
fi

# Up to 1024 connections need more descriptors than the usual soft limit.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true

go build -o "$tmp/server" ./cmd/server
go build -o "$tmp/loadreport" ./cmd/loadreport

# wait_port PORT: wait up to 5 s for a listener on 127.0.0.1:PORT.
wait_port() {
	for _ in $(seq 50); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "load.sh: nothing listening on 127.0.0.1:$1" >&2
	return 1
}

declare -A server_pid port
i=0
for peer in $peers; do
	port[$peer]=$((port_base + i))
	i=$((i + 1))
	"${srv_pin[@]}" "$tmp/server" -router "$peer" -addr "127.0.0.1:${port[$peer]}" &
	server_pid[$peer]=$!
	pids+=("$!")
done
for peer in $peers; do wait_port "${port[$peer]}"; done

# With --proxy, load goes to nginx, which forwards each peer's port+1000 to
# the peer over keep-alive connections. CPU is still read from the server.
target_port() { if [ "$proxy" = 1 ]; then echo $((${port[$1]} + 1000)); else echo "${port[$1]}"; fi; }
if [ "$proxy" = 1 ]; then
	command -v nginx >/dev/null || apt_install nginx-light
	mkdir -p "$tmp/nginx"
	{
		echo "worker_processes 1; daemon off; pid $tmp/nginx/nginx.pid;"
		echo "error_log $tmp/nginx/error.log warn; user root;"
		echo "events { worker_connections 4096; }"
		echo "http { access_log off;"
		for t in client_body proxy fastcgi uwsgi scgi; do echo "${t}_temp_path $tmp/nginx/$t;"; done
		for peer in $peers; do
			echo "upstream $peer { server 127.0.0.1:${port[$peer]}; keepalive 64; }"
			echo "server { listen 127.0.0.1:$(target_port "$peer");"
			echo "  location / { proxy_pass http://$peer; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
		done
		echo "}"
	} >"$tmp/nginx/nginx.conf"
	"${srv_pin[@]}" nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" &
	pids+=("$!")
	for peer in $peers; do wait_port "$(target_port "$peer")"; done
fi

url() {
	local p=/
	[ "$2" = user ] && p=/user/42
	echo "http://127.0.0.1:$(target_port "$1")$p"
}

# check PEER PATH: the server must answer with the hello app's exact body, so
# a misconfigured server cannot post a fast 404.
check() {
	local want=Hello body
	[ "$2" = user ] && want="Hello user 42"
	exec 3<>"/dev/tcp/127.0.0.1/$(target_port "$1")"
	printf 'GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' "${3:-/}" >&3
	body=$(tail -n 1 <&3)
	exec 3<&-
	if [ "$body" != "$want" ]; then
		echo "load.sh: $1 answered ${3:-/} with \"$body\", want \"$want\"" >&2
		return 1
	fi
}
for peer in $peers; do
	check "$peer" root /
	check "$peer" user /user/42
done

# run_load PEER PATH OUT: one throughput run with the chosen tool.
run_load() {
	local u
	u=$(url "$1" "$2")
	case "$tool" in
	bombardier) "${gen_pin[@]}" "$tmp/bombardier" -c "$conns" -d "${duration}s" -l -p r -o json "$u" >"$3" ;;
	wrk) "${gen_pin[@]}" wrk -t8 -c"$conns" -d"${duration}s" --latency "$u" >"$3" ;;
	ab) "${gen_pin[@]}" ab -q -k -c "$conns" -t "$duration" -n 100000000 "$u" >"$3" 2>&1 ;;
	autocannon) "${gen_pin[@]}" npx --yes "autocannon@$autocannon_version" -c "$conns" -d "$duration" -j "$u" >"$3" 2>/dev/null ;;
	esac
}

# cpu_ticks PID: utime+stime (fields 14 and 15 of /proc/PID/stat), in clock
# ticks. Fields are counted after the ")" that ends the command name.
cpu_ticks() {
	local stat f
	stat=$(<"/proc/$1/stat")
	read -r -a f <<<"${stat##*) }"
	echo $((f[11] + f[12]))
}
hz=$(getconf CLK_TCK)

# Warm every server (and nginx) so the first round does not pay start-up.
for peer in $peers; do
	for path in $paths; do "$tmp/bombardier" -c 30 -n 2000 -p r "$(url "$peer" "$path")" >/dev/null; done
done

log "tool=$tool conns=$conns rounds=$rounds duration=${duration}s cpu_requests=$cpu_requests proxy=$proxy pin=$pin"
log "$(go version), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for round in $(seq "$rounds"); do
	for path in $paths; do
		for peer in $peers; do
			run_load "$peer" "$path" "$tmp/${round}_${peer}_${path}.$tool"
			before=$(cpu_ticks "${server_pid[$peer]}")
			"${gen_pin[@]}" "$tmp/bombardier" -c 30 -n "$cpu_requests" -p r "$(url "$peer" "$path")" >/dev/null
			after=$(cpu_ticks "${server_pid[$peer]}")
			echo "$round $peer $path $((after - before)) $cpu_requests $hz" >>"$tmp/cpu.tsv"
		done
	done
	log "round $round of $rounds done"
done

"$tmp/loadreport" -dir "$tmp" -peers "${peers// /,}"
