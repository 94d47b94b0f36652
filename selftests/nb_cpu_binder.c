// SPDX-License-Identifier: GPL-2.0
/*
 * notify_bind_stress_test's CPU binder: a process binding CPUs for a few
 * ms at a time, in slots no other part of the test uses: the threads
 * count on, starving on the bound CPU (nothing is refused them, nor
 * invalidated, as older modules did).
 */
#define PCTR_TEST_NO_HARNESS
#include "pctr_test.h"
#include "nb_stress.h"

/*
 * Binds a CPU for 1-5 ms, reads it, lets go (PCIOCRELEASE or close),
 * waits 4-12 ms, and again.  Every call must succeed: it is the only
 * one binding CPUs.  Slot 2 (event 0x01, 24 bits) and fixed counter 0
 * count every tick, from their presets.
 */
void cpu_binder(unsigned int seed)
{
	struct pctr_bind b;
	struct pctrst st, last;
	uint64_t p0, pf;
	unsigned int s, cpu;
	int fd, e, have;
	long n;
	double t0, end;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!NB_STOP()) {
		fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			note("open (CPU binder): %s", en(errno));
			usleep(10000);
			continue;
		}
		cpu = rnd(&seed, nb_ncpu);
		p0 = (uint64_t)rand_r(&seed) << 8;
		pf = (uint64_t)rand_r(&seed) << 4;
		memset(&b, 0, sizeof(b));
		b.pb_kind = PCTR_BIND_CPU;
		b.pb_id = cpu;
		b.pb_fn[2] = FN(EV_TICKS);
		b.pb_preset[2] = p0;
		b.pb_fn[FIX_TICKS] = FIXFN;
		b.pb_preset[FIX_TICKS] = pf;
		e = ioc(fd, PCIOCBIND, &b);
		if (e) {
			note("PCIOCBIND CPU %u: %s", cpu, en(e));
		} else {
			ST(cpu_binds);
			memset(&last, 0, sizeof(last));
			n = read_long(CPU_BINDINGS);
			if (n != 1)
				note("bound: cpu_bindings %ld", n);
			have = 0;
			t0 = now_sec();
			end = t0 + (1 + rnd(&seed, 3)) / 1000.0;
			do {
				e = rd(fd, &st);
				if (e) {
					note("PCIOCRD (CPU %u): %s", cpu, en(e));
					break;
				}
				ST(cpu_reads);
				for (s = 0; s < PCTR_NUM; s++)
					if (st.pctr_fn[s] != (s == 2 ? FN(EV_TICKS) :
							      s == FIX_TICKS ? FIXFN : 0))
						note("CPU %u slot %u: function %#llx",
						     cpu, s, ULL(st.pctr_fn[s]));
				if (st.pctr_hwc[2] - p0 != st.pctr_hwc[FIX_TICKS] - pf)
					note("CPU %u: slot 2 %llu - %llu != fixed 0 %llu - %llu",
					     cpu, ULL(st.pctr_hwc[2]), ULL(p0),
					     ULL(st.pctr_hwc[FIX_TICKS]), ULL(pf));
				if (have && (st.pctr_hwc[2] < last.pctr_hwc[2] ||
					     st.pctr_hwc[FIX_TICKS] < last.pctr_hwc[FIX_TICKS]))
					note("CPU %u: went back", cpu);
				last = st;
				have = 1;
				usleep(300);
			} while (now_sec() < end && !NB_STOP());
			atomic_fetch_add(&S->cpu_bound_us,
					 (unsigned long)((now_sec() - t0) * 1e6));
			if (rnd(&seed, 2)) {
				release_bound(fd, "CPU binding");
			}
		}
		close(fd);
		n = read_long(CPU_BINDINGS);
		if (n != 0)
			note("closed: cpu_bindings %ld", n);
		usleep(15000 + rnd(&seed, 20000));
	}
	_exit(0);
}
