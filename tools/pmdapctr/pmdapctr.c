// SPDX-License-Identifier: GPL-2.0
/*
 * pmdapctr: a Performance Co-Pilot agent (PMDA) for pctr.
 *
 *   pmdapctr [-d domain] [-l logfile] [-U username] [-c config]
 *
 * It counts the configured events (config.c) on every CPU through pctr's
 * CPU bindings (counting.c) and exports them per CPU, one instance a
 * CPU, as counters, with the instructions per cycle between fetches and
 * the module's own figures (PCIOCINFO, /sys/class/misc/pctr).  Started as
 * root by pmcd, it binds the CPUs, then runs as the PCP user (-U): a
 * binding needs CAP_PERFMON only when it is made.  It has no store
 * callback: no client can change what it counts.
 *
 * The names under pctr.hwcounters depend on the configuration: that
 * subtree is dynamic (the pmns file names it PCTR:*:*).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "counting.h"
#include "domain.h"
#include "../pctr/events.h"

/* The clusters: the module's and the agent's figures, events, derived. */
enum { CL_MODULE, CL_EVENTS, CL_DERIVED };

enum {
	IT_BACKEND, IT_GENERAL, IT_FIXED, IT_WIDTH, IT_FIXED_WIDTH,
	IT_TSC_KHZ, IT_CONTEXTS, IT_CPU_BINDINGS, IT_TAKEN, IT_FAILURES,
	IT_STARTS_KEPT, IT_STARTS_LOADED, IT_AGENT_EVENTS, IT_AGENT_CPUS,
	IT_READ_ERRORS, NSTATIC
};

enum { CPU_INDOM };

#define ONE	PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define NONE	PMDA_PMUNITS(0, 0, 0, 0, 0, 0)

#define M(cl, it, type, indom, sem, units) \
	{ NULL, { PMDA_PMID(cl, it), type, indom, sem, units } }

static const pmdaMetric static_metrics[NSTATIC] = {
	M(CL_MODULE, IT_BACKEND, PM_TYPE_STRING, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, NONE),
	M(CL_MODULE, IT_GENERAL, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, ONE),
	M(CL_MODULE, IT_FIXED, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, ONE),
	M(CL_MODULE, IT_WIDTH, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, NONE),
	M(CL_MODULE, IT_FIXED_WIDTH, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, NONE),
	M(CL_MODULE, IT_TSC_KHZ, PM_TYPE_U64, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, NONE),
	M(CL_MODULE, IT_CONTEXTS, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_INSTANT, ONE),
	M(CL_MODULE, IT_CPU_BINDINGS, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_INSTANT, ONE),
	M(CL_MODULE, IT_TAKEN, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_INSTANT, NONE),
	M(CL_MODULE, IT_FAILURES, PM_TYPE_U64, PM_INDOM_NULL,
	  PM_SEM_COUNTER, ONE),
	M(CL_MODULE, IT_STARTS_KEPT, PM_TYPE_U64, PM_INDOM_NULL,
	  PM_SEM_COUNTER, ONE),
	M(CL_MODULE, IT_STARTS_LOADED, PM_TYPE_U64, PM_INDOM_NULL,
	  PM_SEM_COUNTER, ONE),
	M(CL_MODULE, IT_AGENT_EVENTS, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, ONE),
	M(CL_MODULE, IT_AGENT_CPUS, PM_TYPE_U32, PM_INDOM_NULL,
	  PM_SEM_DISCRETE, ONE),
	M(CL_MODULE, IT_READ_ERRORS, PM_TYPE_U64, PM_INDOM_NULL,
	  PM_SEM_COUNTER, ONE),
};

static const pmdaMetric ipc_metric =
	M(CL_DERIVED, 0, PM_TYPE_DOUBLE, CPU_INDOM, PM_SEM_INSTANT, NONE);

static struct pc_agent agent;
static pmdaMetric *metrics;
static unsigned int nmetrics;
static pmdaInstid *cpu_insts;
static pmdaIndom indoms[] = { { CPU_INDOM, 0, NULL } };
static pmdaNameSpace *tree;
static unsigned long long read_errors;

/* Per CPU: the counts at the last pctr.derived.ipc fetch. */
static struct ipc_prev { uint64_t ins, cyc; } *ipc_prev;

static char *username;
static char *config_path;

static int sysfs_u64(const char *name, uint64_t *v)
{
	char buf[64], *end;

	if (pc_sysfs(name, buf, sizeof(buf)))
		return PM_ERR_AGAIN;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return PM_ERR_VALUE;
	return 0;
}

/* "kept K loaded L" */
static int sysfs_starts(int loaded, uint64_t *v)
{
	unsigned long long k, l;
	char buf[128];

	if (pc_sysfs("starts", buf, sizeof(buf)))
		return PM_ERR_AGAIN;
	if (sscanf(buf, "kept %llu loaded %llu", &k, &l) != 2)
		return PM_ERR_VALUE;
	*v = loaded ? l : k;
	return 0;
}

/*
 * The module's and the agent's figure @item: PCIOCINFO's and the agent's
 * own from memory, the module's counts from its sysfs files, stored as
 * the metric's type says.
 */
static int fetch_module(unsigned int item, pmAtomValue *atom)
{
	const struct pctr_info *in = &agent.info;
	const uint64_t known[NSTATIC] = {
		[IT_GENERAL]		= in->pi_ngeneral,
		[IT_FIXED]		= in->pi_nfixed,
		[IT_WIDTH]		= in->pi_width,
		[IT_FIXED_WIDTH]	= in->pi_fixed_width,
		[IT_TSC_KHZ]		= in->pi_tsc_khz,
		[IT_AGENT_EVENTS]	= agent.nev,
		[IT_AGENT_CPUS]		= agent.ncpus,
		[IT_READ_ERRORS]	= read_errors,
	};
	static const char *const files[NSTATIC] = {
		[IT_CONTEXTS]		= "contexts",
		[IT_CPU_BINDINGS]	= "cpu_bindings",
		[IT_TAKEN]		= "taken",
		[IT_FAILURES]		= "failures",
	};
	uint64_t v = 0;
	int ret = 0;

	if (item >= NSTATIC)
		return PM_ERR_PMID;
	if (item == IT_BACKEND) {
		atom->cp = agent.info.pi_backend;
		return 1;
	}
	if (files[item])
		ret = sysfs_u64(files[item], &v);
	else if (item == IT_STARTS_KEPT || item == IT_STARTS_LOADED)
		ret = sysfs_starts(item == IT_STARTS_LOADED, &v);
	else
		v = known[item];
	if (ret)
		return ret;
	if (static_metrics[item].m_desc.type == PM_TYPE_U32)
		atom->ul = (uint32_t)v;
	else
		atom->ull = v;
	return 1;
}

static struct pc_cpu *cpu_of(unsigned int inst, unsigned int *idx)
{
	unsigned int i;

	for (i = 0; i < agent.ncpus; i++)
		if ((unsigned int)agent.cpus[i].cpu == inst) {
			*idx = i;
			return &agent.cpus[i];
		}
	return NULL;
}

static int fetch_ipc(struct pc_cpu *c, unsigned int idx, pmAtomValue *atom)
{
	int ki = pc_find_generic(&agent, GENERIC_INSTRUCTIONS);
	int kc = pc_find_generic(&agent, GENERIC_CYCLES);
	struct ipc_prev *p = &ipc_prev[idx];
	uint64_t ins, cyc;

	if (ki < 0 || kc < 0)
		return PMDA_FETCH_NOVALUES;
	ins = c->st.pctr_hwc[agent.ev[ki].slot];
	cyc = c->st.pctr_hwc[agent.ev[kc].slot];
	if (cyc == p->cyc)
		return PMDA_FETCH_NOVALUES;
	atom->d = (double)(ins - p->ins) / (double)(cyc - p->cyc);
	p->ins = ins;
	p->cyc = cyc;
	return 1;
}

static int pctr_fetch_cb(pmdaMetric *m, unsigned int inst, pmAtomValue *atom)
{
	unsigned int cl = pmID_cluster(m->m_desc.pmid);
	unsigned int item = pmID_item(m->m_desc.pmid);
	struct pc_cpu *c;
	unsigned int idx;

	if (cl == CL_MODULE) {
		if (inst != PM_IN_NULL)
			return PM_ERR_INST;
		return fetch_module(item, atom);
	}
	c = cpu_of(inst, &idx);
	if (!c)
		return PM_ERR_INST;
	if (c->err)
		return -c->err;
	if (cl == CL_DERIVED && item == 0)
		return fetch_ipc(c, idx, atom);
	if (cl != CL_EVENTS || item >= agent.nev)
		return PM_ERR_PMID;
	atom->ull = c->st.pctr_hwc[agent.ev[item].slot];
	return 1;
}

/* Every binding read once a fetch, then the values from those reads. */
static int pctr_fetch(int n, pmID *pmids, pmResult **resp, pmdaExt *pmda)
{
	unsigned int i;

	pc_read_all(&agent);
	for (i = 0; i < agent.ncpus; i++)
		if (agent.cpus[i].err)
			read_errors++;
	return pmdaFetch(n, pmids, resp, pmda);
}

/* An event's help, made from the backend's description. */
static int pctr_text(int ident, int type, char **buf, pmdaExt *pmda)
{
	static char text[512];
	char where[64];
	const struct pc_event *e;
	pmID pmid = (pmID)ident;

	if (!(type & PM_TEXT_PMID) || pmID_cluster(pmid) != CL_EVENTS)
		return pmdaText(ident, type, buf, pmda);
	if (pmID_item(pmid) >= agent.nev)
		return PM_ERR_PMID;
	e = &agent.ev[pmID_item(pmid)];
	if (e->line)
		snprintf(where, sizeof(where), "line %u of the configuration",
			 e->line);
	else
		snprintf(where, sizeof(where), "a default of the backend");
	if (type & PM_TEXT_ONELINE)
		snprintf(text, sizeof(text), "%s events counted on each CPU",
			 e->spec);
	else
		snprintf(text, sizeof(text),
			 "The count of event %s (the %s backend's %s: %s) on each CPU\n"
			 "since the agent started, whatever ran there, in %s mode, from\n"
			 "pctr's CPU binding (%s).\n"
			 "A counter: its rate is events per second.",
			 e->spec, agent.info.pi_backend, e->backend,
			 e->desc[0] ? e->desc : "no description",
			 (e->fn & PCTR_U) && (e->fn & PCTR_K) ? "user and kernel" :
			 (e->fn & PCTR_U) ? "user" : "kernel", where);
	*buf = text;
	return 0;
}

static int pctr_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
	return pmdaTreePMID(tree, name, pmid);
}

static int pctr_name(pmID pmid, char ***names, pmdaExt *pmda)
{
	return pmdaTreeName(tree, pmid, names);
}

static int pctr_children(const char *name, int flag, char ***kids,
			 int **sts, pmdaExt *pmda)
{
	return pmdaTreeChildren(tree, name, flag, kids, sts);
}

static void fail(const char *what)
{
	pmNotifyErr(LOG_ERR, "%s", what);
	exit(1);
}

/* Count, then build the tables and names from what is counted. */
static void pctr_init(pmdaInterface *dp)
{
	char err[512], name[128];
	unsigned int i, dom = (unsigned int)dp->domain;
	pmID pmid;

	if (pc_open(&agent, err, sizeof(err)) ||
	    pc_config_load(&agent, config_path, err, sizeof(err)) ||
	    pc_bind_all(&agent, err, sizeof(err)))
		fail(err);
	pmNotifyErr(LOG_INFO, "counting %u event(s) on %u CPU(s), %s backend",
		    agent.nev, agent.ncpus, agent.info.pi_backend);
	if (username && geteuid() == 0 && strcmp(username, "root"))
		pmSetProcessIdentity(username);

	nmetrics = NSTATIC + 1 + agent.nev;
	metrics = calloc(nmetrics, sizeof(*metrics));
	cpu_insts = calloc(agent.ncpus, sizeof(*cpu_insts));
	ipc_prev = calloc(agent.ncpus, sizeof(*ipc_prev));
	if (!metrics || !cpu_insts || !ipc_prev || pmdaTreeCreate(&tree) < 0)
		fail("out of memory");
	memcpy(metrics, static_metrics, sizeof(static_metrics));
	metrics[NSTATIC] = ipc_metric;
	for (i = 0; i < agent.nev; i++) {
		pmdaMetric *m = &metrics[NSTATIC + 1 + i];

		m->m_desc.pmid = PMDA_PMID(CL_EVENTS, i);
		m->m_desc.type = PM_TYPE_U64;
		m->m_desc.indom = CPU_INDOM;
		m->m_desc.sem = PM_SEM_COUNTER;
		m->m_desc.units = (pmUnits)ONE;
		pmid = pmID_build(dom, CL_EVENTS, i);
		snprintf(name, sizeof(name), "pctr.hwcounters.%s",
			 agent.ev[i].metric);
		if (pmdaTreeInsert(tree, pmid, name) < 0)
			fail("cannot name the metrics");
	}
	pmdaTreeRebuildHash(tree, agent.nev);
	for (i = 0; i < agent.ncpus; i++) {
		cpu_insts[i].i_inst = agent.cpus[i].cpu;
		if (asprintf(&cpu_insts[i].i_name, "cpu%d",
			     agent.cpus[i].cpu) < 0)
			fail("out of memory");
	}
	indoms[0].it_numinst = (int)agent.ncpus;
	indoms[0].it_set = cpu_insts;

	dp->version.four.fetch = pctr_fetch;
	dp->version.four.text = pctr_text;
	dp->version.four.pmid = pctr_pmid;
	dp->version.four.name = pctr_name;
	dp->version.four.children = pctr_children;
	pmdaSetFetchCallBack(dp, pctr_fetch_cb);
	pmdaInit(dp, indoms, 1, metrics, (int)nmetrics);
}

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	PMDAOPT_DEBUG,
	PMDAOPT_DOMAIN,
	PMDAOPT_HELPTEXT,
	PMDAOPT_LOGFILE,
	PMDAOPT_USERNAME,
	{ "config", 1, 'c', "FILE", "the events to count (default: pctr.conf beside the agent)" },
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "c:D:d:h:l:U:?",
	.long_options = longopts,
};

int main(int argc, char **argv)
{
	pmdaInterface dispatch;
	char helppath[MAXPATHLEN], confpath[MAXPATHLEN];
	int sep = pmPathSeparator(), c;

	pmSetProgname(argv[0]);
	pmGetUsername(&username);
	snprintf(helppath, sizeof(helppath), "%s%cpctr%chelp",
		 pmGetConfig("PCP_PMDAS_DIR"), sep, sep);
	snprintf(confpath, sizeof(confpath), "%s%cpctr%cpctr.conf",
		 pmGetConfig("PCP_PMDAS_DIR"), sep, sep);
	config_path = confpath;
	pmdaDaemon(&dispatch, PMDA_INTERFACE_4, pmGetProgname(), PCTR,
		   "pctr.log", helppath);
	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF) {
		if (c == 'c')
			config_path = opts.optarg;
	}
	if (opts.errors) {
		pmdaUsageMessage(&opts);
		exit(1);
	}
	if (opts.username)
		username = opts.username;
	pmdaOpenLog(&dispatch);
	pctr_init(&dispatch);
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);
	exit(0);
}
