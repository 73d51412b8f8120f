# etcdsim — the commands a new user runs. `make test` is what CI runs.
GO ?= go

.PHONY: test test-cpu test-registry test-wait test-children test-race race-cpu race-wait test-short short-cpu short-wait bench lint sim soak pitfalls examples examples-vitess explore-bench

# Vet, then five lines of work, three at a time (make -j3), the long
# ones first:
# - race-cpu, CPU-bound: the race-enabled tests of every package but
#   program, two packages at a time (most tests run on the virtual
#   clock). Tests that run many clusters in this process skip under -race
#   or run a sample (one case of several, one seed, one clock, fewer
#   rounds), since the detector slows a CPU-bound run about tenfold; a
#   run of each family (TestRecipeCloseEveryFamily, TestRecipeClose) is
#   the detector's look at the families' workloads, recorders and
#   checkers.
# - test-wait, mostly waiting on programs and the real clock: the program
#   package's race-enabled tests, then its real-clock scenario runs
#   without the detector (they skip under -race: the detector slows the
#   test programs past the runs' timing).
# - examples: the example modules, also mostly waiting (go-zero's and the
#   programs' runs are on the real clock).
# - test-children, when a line ends (examples, first): simrun's tests
#   whose runs are all in a simrun or badsim they build, without the
#   detector (under -race it would watch only their exec and wait; the
#   programs are built without it), mostly waiting on child processes.
# - test-registry, when the next line ends: the whole scenario registry
#   without the detector, four runs at once, with the short exploration
#   that must find a lock pitfall and flag no careful lock, and every
#   test that runs less under -race (REGISTRY_TESTS, SAMPLED_TESTS). It
#   is CPU-bound and fills the cores race-cpu leaves while its last,
#   serial, package (scenarios) runs.
# The waiting lines take a minute of CPU for each four to five of wall
# time, so beside the CPU-bound ones they cost them little. In CI at
# 2f29179, before these five lines (race-cpu and the registry one after
# the other, simrun's child-process tests under -race): make test 603 s,
# the race packages scenarios 277 s, cmd/simrun/simrun 265 s, cluster
# 104 s, faults 58 s, lock 36 s, the registry's step 86 s; program's race
# tests 157 s and real-clock runs 146 s; the examples about 180 s.
# Measured here (go test -json, on a machine shared with other work):
# simrun's race tests took 587 s of wall and 182 s of CPU at load 15-20,
# 274 s of that wall in the child-process tests now in test-children and
# 31 s in the -ttl 6s case now in test-registry; after, 365 s and 98 s at
# load 21-25, 223 s of it TestCampaignResumes's in-process campaign.
# test-children takes 154 s of wall, 78 s of CPU, at load 19-29.
# internal/layout's TestRaceListsAreKept checks, in every package, that
# a test that runs less under -race (a sample, some cases, or nothing)
# runs whole in a go test of make test without the detector (named in
# REGISTRY_TESTS, SAMPLED_TESTS or PROCESS_TESTS, or one of make
# examples' TestExamples), and that every name in those lists is such a
# test.
REGISTRY_TESTS = TestRegistered|PitfallsPassWithCorrectRecipe|TestUpstreamReproduces|TestLockSafetyLeaselessHolder|TestExploreFindsAPitfall|TestExploreResumesAndMerges|TestExploreTakesAnOwnRecipe|TestRecipeClose|TestHAManagerAtItsOwnTTL|TestUserTransferCarefulPasses
PROCESS_TESTS = TestProcessLockSafety|TestProcessElectionSafety|TestProcessFamilies|TestBrokenProgramJudged|TestReadyBeforeTheClock|TestUnfencedSurvivesRestart|TestChildProcessFailures|TestReplayInChildProcess|TestReplayInProcessLogsToTheRunsFile|TestNothingOutlivesARun|TestShardedCampaignAsItRuns|TestInterrupt|TestInterruptTwice|TestASpinningRunSaysHowFarItGot|TestCampaignResumes
# The tests of other packages that run less under -race — one seed, one
# clock a fault, ten rounds, one case, nothing — and whole in
# test-registry.
SAMPLED_TESTS = TestHealthyClusterKeepsLeaseAtLatencyZero|TestEveryFaultOnBothClocks|TestMutualExclusion|TestShrinkFindsTheFaultThatMatters|TestRunAtTheRecipesTTL
test:
	$(GO) vet ./...
	$(MAKE) --no-print-directory -j3 -Oline race-cpu test-wait examples test-children test-registry

# The CPU-bound part alone: the race-enabled tests, then the registry's.
test-cpu: race-cpu
	$(MAKE) --no-print-directory test-registry

test-registry:
	$(GO) test -count=1 -parallel 4 -timeout 14m -run '$(REGISTRY_TESTS)|^($(SAMPLED_TESTS))$$' ./scenarios ./cluster ./faults ./lock ./cmd/simrun/simrun

test-wait: race-wait
	$(GO) test -count=1 -parallel 4 -timeout 10m -run '^($(PROCESS_TESTS))$$' ./program

test-children:
	$(GO) test -count=1 -parallel 3 -timeout 10m -run '^($(PROCESS_TESTS))$$' ./cmd/simrun/simrun

# Vet and the race-enabled tests of every package, in two lines.
# The slowest packages are named first, so they start first (go test
# starts packages in the order given, each once): two at a time, the long
# ones overlap the short ones instead of running alone at the end. The
# order is CI's ranking at 2f29179 less what has left -race since:
# scenarios about 270 s, cmd/simrun/simrun about 130 s (265 s with its
# child-process tests), cluster 104 s, faults 58 s, lock 36 s; every
# other package under 20 s.
SLOW_FIRST = ./scenarios ./cmd/simrun/simrun ./cluster ./faults ./lock
WAITING = ./program
test-race:
	$(GO) vet ./...
	$(MAKE) --no-print-directory -j2 -Oline race-cpu race-wait

race-cpu:
	$(GO) test -race -count=1 -p 2 -parallel 4 -timeout 14m $(SLOW_FIRST) \
	  $$($(GO) list ./... | grep -v -x -e '$(subst ./,github.com/etcdsim/etcdsim/,$(WAITING))')

# The program package's tests of the example programs (TestExamples...)
# run in make examples, after its npm ci, which in make test runs beside
# this line: here they would find node_modules half written.
race-wait:
	$(GO) test -race -count=1 -parallel 4 -timeout 14m -skip '^TestExamples' $(WAITING)

# The example modules, each a module of its own that uses etcdsim's public
# API only: a user's own recipes (examples/myrecipes) and go-zero's
# core/discov (examples/gozero, on the real clock, six runs at once, about
# 20 s, then four key-leak runs one at a time, about a minute): vet them and run their recipes under their families' safety
# scenarios. The program examples (examples/node: npm etcd3 after npm ci;
# examples/python: Debian's python3-etcd3) are checked against the protocol
# and run under the lock family's pause scenario (about a minute).
examples:
	cd examples/myrecipes && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd examples/gozero && $(GO) vet ./... && $(GO) test -count=1 -parallel 6 ./...
	cd examples/gokit && $(GO) vet ./... && $(GO) test -count=1 -short ./...
	cd examples/node && npm ci --no-audit --no-fund
	$(GO) test -count=1 -run 'TestExamples' ./program/

# vitess's etcd2topo (examples/vitess): a large module whose first build
# takes minutes, so make test leaves it out and CI runs it as a step of its
# own (docs/frameworks.md has the numbers). Its runs are on the virtual
# clock (45 of them, about 1 s of CPU each), two at once.
examples-vitess:
	cd examples/vitess && $(GO) vet ./... && $(GO) test -count=1 -parallel 2 -timeout 15m ./...

# The quick loop: vet, and every package's tests with the slowest cases
# skipped, no race detector. CI runs it on the next Go release
# (GOTOOLCHAIN=go1.27.3 make test-short, see .ci/run): 190 s at 2f29179,
# the compile included, program 97 s of it, scenarios 47 s, cluster 29 s.
# The program package mostly waits on its programs (measured here at load
# 20: 137 s of wall for 30 s of CPU, 62 s of it TestBadInput's fifty
# cases, four at a time, each waiting for a broken program), so it runs
# on a line of its own beside the others, its cases all at once (82 s of
# wall, 22 s of CPU at load 25).
test-short:
	$(GO) vet ./...
	$(MAKE) --no-print-directory -j2 -Oline short-cpu short-wait

short-cpu:
	$(GO) test -short -count=1 -parallel 4 \
	  $$($(GO) list ./... | grep -v -x -e '$(subst ./,github.com/etcdsim/etcdsim/,$(WAITING))')

short-wait:
	$(GO) test -short -count=1 -parallel 16 $(WAITING)

# Benchmarks with their metrics (start-ms, close-ms, failover-ms, ...).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# Formatting and vet.
lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every registered scenario with simrun — a correct recipe on its seed, a
# pitfall found on one of up to 5 (scenarios.DetectionSeeds); results in results/gallery
# (about a minute on 2 cores on the virtual clock; CLOCK=real for the wall clock,
# several minutes).
CLOCK ?=
sim:
	$(GO) run ./cmd/simrun gallery $(if $(CLOCK),-clock $(CLOCK)) -out results/gallery

# 1000 short runs of every family, two at a time, each in a child process
# (10+ minutes); then checks from summary.json that simrun's own
# goroutines, RSS and open files stay within 10% from run 50 to the end.
# Always from scratch: a campaign resumes a directory it left unfinished,
# and a resumed run has no figures of the simrun that ran it.
soak:
	rm -rf results/soak
	$(GO) run ./cmd/simrun campaign -f cmd/simrun/simrun/testdata/soak.yaml -parallel 2 -out results/soak; \
	  code=$$?; [ $$code -le 1 ] || exit $$code
	$(GO) run ./cmd/simrun/internal/soakcheck -from 50 -tolerance 0.1 results/soak/summary.json

# The gallery calibrated: every pitfall, every reproduction of a report
# against etcd, every correct recipe under each of its schedules and every
# fix 100 times; prints per scenario the runs,
# expectation met, detection rate, median time to first violation and
# median run time. Results, pages and summary.md in results/pitfalls
# (results/pitfalls-real with CLOCK=real, which takes about an hour).
# From scratch, since the code under test may have changed; RESUME=1
# resumes one that was interrupted instead.
PARALLEL ?= $(shell nproc 2>/dev/null || echo 2)
RESUME ?=
pitfalls:
	$(if $(RESUME),,rm -rf results/pitfalls$(if $(CLOCK),-$(CLOCK)))
	$(GO) run ./cmd/simrun campaign -f cmd/simrun/campaigns/pitfalls.yaml -parallel $(PARALLEL) \
	  $(if $(CLOCK),-clock $(CLOCK)) -out results/pitfalls$(if $(CLOCK),-$(CLOCK))

# Blind rediscovery (docs/explore.md): each broken recipe of the gallery
# in every explorable family, and each upstream reproduction whose bug is
# in a recipe, explored uniformly with no schedule written for it, from
# each seed of EXPLORE_SEEDS, one row at a time with -parallel 2, until
# its first finding or EXPLORE_CAP of wall time; then each careful recipe
# for EXPLORE_CAREFUL_CAP, which must find nothing. One line per row in
# results/explore-bench/rows: runs, wall and CPU (user + system) seconds
# to the first finding, and the load average as the row ended; then the
# median and worst over the broken rows (a row not found counts as its
# cap) and the careful rows' flags (scripts/explore-bench.sh).
EXPLORE_CAP ?= 10m
EXPLORE_CAREFUL_CAP ?= 10m
EXPLORE_SEEDS ?= 1
EXPLORE_BROKEN ?= lock/released-marker lock/unfenced lock/setnx lock/keepalive-misconfigured lock/shared-session \
  lock/serializable-check lock/delete-name lock/orphaned-waiter lock/call-context-keepalive lock/missed-wakeup \
  lock/unlock-retry lock/keepalive-channel lock/requireleader-keepalive \
  election/modrevision election/ignoresdone election/unchecked election/missed-wakeup election/campaign-retry election/resign-retry \
  discovery/noreregister discovery/oneretry discovery/rekey \
  rwmutex/reader-ignores-done rwmutex/unchecked \
  queue/at-most-once queue/unconditional-claim queue/unpadded-priority queue/priority-at-most-once \
  barrier/short-count barrier/upstream register/leasing register/leasing-txn-writes \
  stm/read-committed stm/repeatable-reads stm/serializable-snapshot
EXPLORE_CAREFUL ?= lock/mutex lock/v3lock lock/fenced lock/herd lock/unlock-retry-fenced lock/keepalive-once lock/requireleader-cancel lock/session-mutex \
  election/rechecked election/keywatched election/server election/campaign-retry-resigned election/resign-retry-fixed \
  discovery/keepalive rwmutex/checked queue/claimed queue/priority-claimed barrier/checked \
  register/kv register/leasing-guarded register/ordering stm/serializable
explore-bench:
	rm -rf results/explore-bench && mkdir -p results/explore-bench
	$(GO) build -o results/explore-bench/simrun ./cmd/simrun
	@b=results/explore-bench; for fr in $(EXPLORE_BROKEN); do for s in $(EXPLORE_SEEDS); do \
	  d=$$b/broken/$$fr/seed-$$s; mkdir -p $$d; \
	  /usr/bin/time -f '%U %S %e' -o $$d/time $$b/simrun explore -family $${fr%%/*} -recipe $${fr#*/} -budget $(EXPLORE_CAP) -seed $$s \
	    -until-found -parallel 2 -shrink-runs -1 -out $$d > $$d/out 2> $$d/err; \
	  first=$$(grep -o 'first finding at run [0-9]*, [0-9hms.]* ' $$d/out | awk '{ print $$5, $$6 }' | tr -d ,); \
	  runs=$$(grep -o 'in [0-9]* runs' $$d/out | tail -1 | tr -dc 0-9); \
	  if [ -n "$$first" ]; then row="found run=$$(echo $$first | cut -d' ' -f1) wall=$$(echo $$first | cut -d' ' -f2)"; \
	  else row="none runs=$$runs wall=$(EXPLORE_CAP)"; fi; \
	  echo "broken $$fr seed=$$s $$row cpu=$$(tail -1 $$d/time | awk '{ print $$1 + $$2 }') load=$$(cut -d' ' -f1 /proc/loadavg)" | tee -a $$b/rows; \
	done; done; \
	grep '^broken' $$b/rows | awk '{ d = $$6; sub(/^wall=/, "", d); t = 0; \
	    while (match(d, /^[0-9.]+(h|ms|m|s)/)) { u = substr(d, RSTART, RLENGTH); v = u + 0; sub(/^[0-9.]+/, "", u); \
	      f = 1; if (u == "h") f = 3600; else if (u == "m") f = 60; else if (u == "ms") f = 0.001; t += v * f; d = substr(d, RSTART + RLENGTH) } \
	    print t }' | sort -n | awk '{ w[NR] = $$1 } END { if (!NR) exit; if (NR % 2) m = w[(NR + 1) / 2]; else m = (w[NR / 2] + w[NR / 2 + 1]) / 2; \
	    printf "broken rows: %d; wall s to first finding: median %.1f, worst %.1f (a row not found counts as its cap)\n", NR, m, w[NR] }' | tee -a $$b/rows; \
	for fr in $(EXPLORE_CAREFUL); do d=$$b/careful/$$fr; mkdir -p $$d; \
	  /usr/bin/time -f '%U %S %e' -o $$d/time $$b/simrun explore -family $${fr%%/*} -recipe $${fr#*/} -budget $(EXPLORE_CAREFUL_CAP) \
	    -parallel 2 -shrink-runs 4 -out $$d > $$d/out 2> $$d/err; \
	  echo "careful $$fr cpu=$$(tail -1 $$d/time | awk '{ print $$1 + $$2 }') load=$$(cut -d' ' -f1 /proc/loadavg): $$(grep 'distinct ways' $$d/out)" | tee -a $$b/rows; \
	done
