// SPDX-License-Identifier: GPL-2.0
/*
 * pctr load [FILE.ko] [PARAM=VALUE...], pctr unload, pctr status: the
 * module's administration, through libkmod as modprobe does it.
 *
 * Where load finds pctr.ko, first found wins (Documentation/admin.rst):
 *   1. the file named on the command line (an argument ending in ".ko"
 *      or holding a '/');
 *   2. modules.dep of the running kernel (what DKMS, the pctr-dkms
 *      package or "make modules_install" installed: modinfo pctr);
 *   3. the build tree the pctr binary runs from: ../pctr.ko,
 *      ../../pctr.ko and ../vm/<release>/pctr.ko beside it, each only if
 *      its vermagic names the running kernel.
 * Options from modprobe.d ("options pctr ...") come first, the command
 * line's after them, so the command line wins.
 *
 * Exit status: 0 done, 1 failed (the message says what to do), 2 usage;
 * status exits 3 when the module is not loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "admin.h"
#include "events.h"
#include "pctr_internal.h"

#define SYSMOD	"/sys/module/pctr"
#define SYSDEV	"/sys/class/misc/pctr"
#define EXIT_USAGE	2
#define EXIT_NOT_LOADED	3

static const char *prog = "pctr";

int pctr_is_admin(const char *cmd)
{
	return !strcmp(cmd, "load") || !strcmp(cmd, "unload") ||
	       !strcmp(cmd, "status");
}

static int admin_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s load [FILE.ko] [PARAM=VALUE...]\n"
		"       %s unload\n"
		"       %s status\n"
		"  load    load the module (root): FILE.ko, else modules.dep, else the\n"
		"          build tree; PARAM=VALUE as modinfo pctr lists them\n"
		"  unload  unload it (root); refused while programs use it, naming them\n"
		"  status  the module, its parameters, backend, counters and users\n"
		"See pctr(1) and Documentation/admin.rst.\n", prog, prog, prog);
	return status;
}

static int is_loaded(void)
{
	return access(SYSMOD "/initstate", F_OK) == 0 ||
	       access(SYSMOD "/parameters", F_OK) == 0;
}

/* The value of modinfo key @key in @mod's file (first one), or NULL. */
static char *mod_info(struct kmod_module *mod, const char *key)
{
	struct kmod_list *list = NULL, *l;
	char *val = NULL;

	if (kmod_module_get_info(mod, &list) < 0)
		return NULL;
	kmod_list_foreach(l, list) {
		if (!strcmp(kmod_module_info_get_key(l), key)) {
			val = strdup(kmod_module_info_get_value(l));
			break;
		}
	}
	kmod_module_info_free_list(list);
	return val;
}

/* Whether the module file's vermagic names @release (its first word). */
static int vermagic_matches(struct kmod_module *mod, const char *release)
{
	char *vm = mod_info(mod, "vermagic");
	size_t n = strlen(release);
	int ok;

	ok = vm && !strncmp(vm, release, n) && (vm[n] == ' ' || !vm[n]);
	free(vm);
	return ok;
}

/*
 * The build tree beside the running binary: the guest's /pctr/tools/pctr
 * has /pctr/pctr.ko, a tree's build/tools/pctr has the top's pctr.ko and
 * testing/vm/build-module's build/vm/<release>/pctr.ko.
 */
static struct kmod_module *from_build_tree(struct kmod_ctx *ctx,
					   const char *release, char *path,
					   size_t len)
{
	static const char *const rel[] = { "../pctr.ko", "../../pctr.ko",
					   "../vm/%s/pctr.ko" };
	char exe[PATH_MAX], cand[PATH_MAX + 80], *slash;
	struct kmod_module *mod;
	ssize_t n;
	unsigned int i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char tail[64];

		snprintf(tail, sizeof(tail), rel[i], release);
		snprintf(cand, sizeof(cand), "%s/%s", exe, tail);
		if (!realpath(cand, path) || strlen(path) >= len)
			continue;
		if (kmod_module_new_from_path(ctx, path, &mod) < 0)
			continue;
		if (vermagic_matches(mod, release))
			return mod;
		kmod_module_unref(mod);
	}
	return NULL;
}

/* pctr.ko as modules.dep knows it, or NULL. */
static struct kmod_module *from_modules_dep(struct kmod_ctx *ctx)
{
	struct kmod_list *list = NULL, *l;
	struct kmod_module *found = NULL;

	if (kmod_module_new_from_lookup(ctx, "pctr", &list) < 0)
		return NULL;
	kmod_list_foreach(l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		if (!found && kmod_module_get_path(m) &&
		    !strcmp(kmod_module_get_name(m), "pctr"))
			found = m;
		else
			kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	return found;
}

/*
 * Every PARAM=VALUE names a parameter the file declares ("parm" in
 * modinfo): the kernel would ignore an unknown one with only a log line.
 */
static int check_params(struct kmod_module *mod, char **params, int n)
{
	struct kmod_list *list = NULL, *l;
	char known[1024] = "";
	int i, bad = 0;

	if (kmod_module_get_info(mod, &list) < 0)
		return 0;	/* the kernel checks what it can */
	kmod_list_foreach(l, list) {
		const char *v = kmod_module_info_get_value(l);
		size_t k = strcspn(v, ":");

		if (strcmp(kmod_module_info_get_key(l), "parm"))
			continue;
		if (strlen(known) + k + 2 < sizeof(known)) {
			strcat(known, " ");
			strncat(known, v, k);
		}
	}
	kmod_module_info_free_list(list);
	for (i = 0; i < n; i++) {
		char name[64], *tok, copy[sizeof(known)], *save;
		size_t k = strcspn(params[i], "=");
		const char *best;
		struct nearest nr;
		int found = 0;

		snprintf(name, sizeof(name), "%.*s", (int)k, params[i]);
		strcpy(copy, known);
		nearest_init(&nr, name);
		for (tok = strtok_r(copy, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			if (!strcmp(tok, name)) {
				found = 1;
				break;
			}
			nearest_add(&nr, tok);
		}
		if (found)
			continue;
		bad = 1;
		best = nearest_best(&nr);
		if (best)
			fprintf(stderr, "%s: load: unknown parameter '%s': did you mean '%s'?\n",
				prog, name, best);
		else
			fprintf(stderr, "%s: load: unknown parameter '%s'\n",
				prog, name);
	}
	if (bad)
		fprintf(stderr, "%s: load: pctr.ko's parameters:%s (modinfo -p pctr)\n",
			prog, known);
	return bad ? -1 : 0;
}

static int cmd_load(int argc, char **argv)
{
	const char *file = NULL, *how;
	char **params = calloc(argc + 1, sizeof(char *));
	char path[PATH_MAX], *opts;
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	struct utsname u;
	size_t olen = 1;
	int i, n = 0, err;

	if (!params)
		return 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t l = strlen(a);

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return admin_usage(stdout, 0);
		if (a[0] == '-' || !l)
			goto usage;
		if (strchr(a, '=') && a[0] != '=' && !strchr(a, '/')) {
			params[n++] = argv[i];
			olen += l + 1;
		} else if ((l > 3 && !strcmp(a + l - 3, ".ko")) ||
			   strchr(a, '/')) {
			if (file)
				goto usage;
			file = a;
		} else {
			fprintf(stderr, "%s: load: '%s' is neither PARAM=VALUE nor a FILE.ko\n",
				prog, a);
			goto usage;
		}
	}
	if (is_loaded()) {
		fprintf(stderr, "%s: load: the module is already loaded (pctr status shows it);\n"
			"%s: to load it with other parameters: sudo pctr unload, then pctr load\n",
			prog, prog);
		return 1;
	}
	uname(&u);
	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		fprintf(stderr, "%s: load: libkmod: cannot start\n", prog);
		return 1;
	}
	kmod_set_log_priority(ctx, 0);
	if (file) {
		how = "named";
		if (!realpath(file, path) ||
		    kmod_module_new_from_path(ctx, path, &mod) < 0) {
			fprintf(stderr, "%s: load: %s: %s\n", prog, file,
				strerror(errno ? errno : ENOENT));
			return 1;
		}
		if (!vermagic_matches(mod, u.release))
			fprintf(stderr, "%s: load: warning: %s was not built for %s (its vermagic differs)\n",
				prog, path, u.release);
	} else if ((mod = from_modules_dep(ctx))) {
		how = "modules.dep";
		snprintf(path, sizeof(path), "%s", kmod_module_get_path(mod));
	} else if ((mod = from_build_tree(ctx, u.release, path,
					  sizeof(path)))) {
		how = "build tree";
	} else {
		fprintf(stderr,
			"%s: load: no pctr.ko for kernel %s: not in modules.dep, nor in a build tree beside %s.\n"
			"%s: install it (the pctr-dkms package, or make && sudo make modules_install),\n"
			"%s: or name the file: sudo pctr load PATH/pctr.ko\n",
			prog, u.release, prog, prog, prog);
		return 1;
	}
	if (check_params(mod, params, n) < 0)
		return EXIT_USAGE;

	/* modprobe.d's options first: the command line's override them. */
	if (kmod_module_get_options(mod))
		olen += strlen(kmod_module_get_options(mod)) + 1;
	opts = calloc(1, olen);
	if (!opts)
		return 1;
	if (kmod_module_get_options(mod))
		strcat(opts, kmod_module_get_options(mod));
	for (i = 0; i < n; i++) {
		if (opts[0])
			strcat(opts, " ");
		strcat(opts, params[i]);
	}
	err = kmod_module_insert_module(mod, 0, opts);
	if (err < 0) {
		err = -err;
		fprintf(stderr, "%s: load: %s: %s\n", prog, path, strerror(err));
		if (err == EPERM || err == EACCES)
			fprintf(stderr, "%s: loading a module needs root (CAP_SYS_MODULE): sudo pctr load%s%s\n",
				prog, n ? " " : "", n ? opts : "");
		else if (err == EEXIST)
			fprintf(stderr, "%s: it is already loaded: pctr status\n", prog);
		else if (err == ENOEXEC)
			fprintf(stderr, "%s: the file was not built for kernel %s: rebuild it (dkms, or make KDIR=/lib/modules/%s/build)\n",
				prog, u.release, u.release);
		else
			fprintf(stderr, "%s: the kernel refused it; its log says why: dmesg | grep pctr\n",
				prog);
		return 1;
	}
	printf("%s: loaded %s (%s)%s%s\n", prog, path, how,
	       opts[0] ? " with " : "", opts);
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return 0;

usage:
	return admin_usage(stderr, EXIT_USAGE);
}

/* Whether descriptor @fd, whose link is @target, is /dev/pctr. */
static int is_device(const char *fd, const char *target, void *arg)
{
	const struct stat *dev = arg;
	struct stat st;

	if (!strcmp(target, "/dev/pctr"))
		return 1;
	return dev->st_rdev && !stat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == dev->st_rdev;
}

/*
 * The processes with /dev/pctr open, as /proc shows them to us (all of
 * them to root): "pid (comm)" each, into @buf; their number.
 */
static int device_users(char *buf, size_t len)
{
	struct stat dev;

	if (stat("/dev/pctr", &dev) < 0)
		dev.st_rdev = 0;
	return pctr_fd_users(is_device, &dev, "", INT_MAX, buf, len);
}

/* Why unload cannot go on now: who uses the module. */
static void tell_users(int refcnt)
{
	char who[1024], ctx[32], bind[32];
	int n = device_users(who, sizeof(who));

	fprintf(stderr, "%s: unload: the module is in use (%d reference%s)\n",
		prog, refcnt, refcnt == 1 ? "" : "s");
	if (n)
		fprintf(stderr, "%s: /dev/pctr is open in: %s\n", prog, who);
	else if (geteuid())
		fprintf(stderr, "%s: (run as root to see which processes have /dev/pctr open)\n",
			prog);
	pctr_read_line(SYSDEV "/contexts", ctx, sizeof(ctx));
	pctr_read_line(SYSDEV "/cpu_bindings", bind, sizeof(bind));
	if (ctx[0] || bind[0])
		fprintf(stderr, "%s: counter contexts: %s, CPU bindings: %s\n",
			prog, ctx[0] ? ctx : "?", bind[0] ? bind : "?");
	fprintf(stderr, "%s: end those programs (or let them close /dev/pctr), then: sudo pctr unload\n",
		prog);
}

static int cmd_unload(int argc, char **argv)
{
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	int err, refcnt;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return admin_usage(stdout, 0);
	if (argc > 1)
		return admin_usage(stderr, EXIT_USAGE);
	if (!is_loaded()) {
		fprintf(stderr, "%s: unload: the module is not loaded\n", prog);
		return 1;
	}
	ctx = kmod_new(NULL, NULL);
	if (!ctx || kmod_module_new_from_name(ctx, "pctr", &mod) < 0) {
		fprintf(stderr, "%s: unload: libkmod: cannot start\n", prog);
		return 1;
	}
	kmod_set_log_priority(ctx, 0);
	refcnt = kmod_module_get_refcnt(mod);
	if (refcnt > 0) {
		tell_users(refcnt);
		return 1;
	}
	err = kmod_module_remove_module(mod, KMOD_REMOVE_NOWAIT);
	if (err < 0) {
		err = -err;
		if (err == EAGAIN || err == EBUSY) {
			tell_users(kmod_module_get_refcnt(mod));
			return 1;
		}
		fprintf(stderr, "%s: unload: %s\n", prog, strerror(err));
		if (err == EPERM || err == EACCES)
			fprintf(stderr, "%s: unloading a module needs root (CAP_SYS_MODULE): sudo pctr unload\n",
				prog);
		return 1;
	}
	printf("%s: unloaded\n", prog);
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return 0;
}

static void show_params(void)
{
	struct dirent **names;
	int n, i;

	n = scandir(SYSMOD "/parameters", &names, NULL, alphasort);
	printf("%-12s", "parameters");
	for (i = 0; i < n; i++) {
		char path[512], val[128];

		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), SYSMOD "/parameters/%s",
				 names[i]->d_name);
			pctr_read_line(path, val, sizeof(val));
			printf(" %s=%s", names[i]->d_name, val);
			if (!strcmp(names[i]->d_name, "dev_mode"))
				printf(" (%#o)", (unsigned int)strtoul(val, NULL, 10));
		}
		free(names[i]);
	}
	if (n > 0)
		free(names);
	else
		printf(" (none readable)");
	printf("\n");
}

static void show_device(void)
{
	struct stat st;
	char mode[11];
	int i;

	if (stat("/dev/pctr", &st) < 0) {
		printf("%-12s /dev/pctr missing: %s (is udev running?)\n",
		       "device", strerror(errno));
		return;
	}
	for (i = 0; i < 9; i++)
		mode[i] = st.st_mode & (0400 >> i) ? "rwxrwxrwx"[i] : '-';
	mode[9] = '\0';
	printf("%-12s /dev/pctr %04o %s uid %u gid %u\n", "device",
	       st.st_mode & 07777, mode, st.st_uid, st.st_gid);
}

/* "PID (comm)", or just PID once it is gone. */
static void show_pid(const char *pid)
{
	char path[64], comm[64];

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (pctr_read_line(path, comm, sizeof(comm))[0])
		printf("%s (%s)", pid, comm);
	else
		printf("%s", pid);
}

/* A slot mask as "0,16". */
static void show_slots(unsigned long mask)
{
	const char *sep = "";
	unsigned int s;

	for (s = 0; s < 8 * sizeof(mask); s++)
		if (mask & (1UL << s)) {
			printf("%s%u", sep, s);
			sep = ",";
		}
}

/*
 * Who holds the counters: hwpmc's GETPMCINFO in pctr's terms.  A CPU
 * binding holds its slots on every CPU and its CPU's counters (threads
 * keep the other slots, and count on the other CPUs); otherwise each
 * thread context holds them while its thread runs; perf and the NMI
 * watchdog may have them while pctr does not.  Then each binding, from
 * sysfs (root's to read).
 */
static void show_holders(int taken)
{
	char buf[64], held[32], line[256], kind[16], id[16], binder[16];
	unsigned long mask, smask;
	int ctxs, cpub, n = 0;
	FILE *f;

	ctxs = atoi(pctr_read_line(SYSDEV "/contexts", buf, sizeof(buf)));
	cpub = atoi(pctr_read_line(SYSDEV "/cpu_bindings", buf, sizeof(buf)));
	if (cpub)
		printf("%-12s held by %d CPU binding(s): slots mask %s everywhere, their CPUs' counters; threads the rest (%d context(s))\n",
		       "disposition", cpub,
		       pctr_read_line(SYSDEV "/held_slots", held, sizeof(held)),
		       ctxs);
	else if (ctxs)
		printf("%-12s per thread: %d context(s), each holding the counters while its thread runs\n",
		       "disposition", ctxs);
	else if (taken)
		printf("%-12s free (pctr keeps the PMU until its last user goes)\n",
		       "disposition");
	else
		printf("%-12s free (perf or the NMI watchdog may be using them)\n",
		       "disposition");
	f = fopen(SYSDEV "/bindings", "re");
	if (!f) {
		printf("%-12s %s\n", "bindings", errno == EACCES ?
		       "(root only: " SYSDEV "/bindings)" : "(not shown by this module)");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		smask = 0;
		if (sscanf(line, "%15s %15s slots %lx", kind, id, &mask) != 3)
			continue;
		if (!strcmp(kind, "cpu")) {
			if (sscanf(line, "%*s %*s slots %*x binder %15s", binder) != 1)
				continue;
		} else if (sscanf(line, "%*s %*s slots %*x sampling %lx binder %15s",
				  &smask, binder) != 2) {
			continue;
		}
		printf("%-12s %s ", n++ ? "" : "bindings", kind);
		if (strcmp(kind, "cpu"))
			show_pid(id);
		else
			printf("%s", id);
		printf(": slots ");
		show_slots(mask);
		if (smask) {
			printf(" (sampling ");
			show_slots(smask);
			printf(")");
		}
		printf(", bound by ");
		show_pid(binder);
		printf("%s\n", strstr(line, " ended") ? ", ended" : "");
	}
	fclose(f);
	if (!n)
		printf("%-12s none\n", "bindings");
}

static int cmd_status(int argc, char **argv)
{
	char buf[256], refcnt[32], state[32];
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	struct utsname u;
	int taken;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return admin_usage(stdout, 0);
	if (argc > 1)
		return admin_usage(stderr, EXIT_USAGE);
	uname(&u);
	ctx = kmod_new(NULL, NULL);
	if (ctx)
		kmod_set_log_priority(ctx, 0);
	if (!is_loaded()) {
		printf("%-12s pctr not loaded (load it: sudo pctr load)\n",
		       "module");
		if (ctx && (mod = from_modules_dep(ctx)))
			printf("%-12s %s (modules.dep)\n", "available",
			       kmod_module_get_path(mod));
		else if (ctx && (mod = from_build_tree(ctx, u.release, buf,
						       sizeof(buf))))
			printf("%-12s %s (build tree)\n", "available", buf);
		else
			printf("%-12s no pctr.ko for %s (install pctr-dkms)\n",
			       "available", u.release);
		return EXIT_NOT_LOADED;
	}
	pctr_read_line(SYSMOD "/initstate", state, sizeof(state));
	pctr_read_line(SYSMOD "/refcnt", refcnt, sizeof(refcnt));
	printf("%-12s pctr %s, %s reference(s)", "module",
	       state[0] ? state : "loaded", refcnt[0] ? refcnt : "?");
	if (pctr_read_line(SYSMOD "/srcversion", buf, sizeof(buf))[0])
		printf(", srcversion %s", buf);
	printf("\n");
	show_params();
	show_device();
	printf("%-12s %s\n", "backend",
	       pctr_read_line(SYSDEV "/backend", buf, sizeof(buf)));
	printf("%-12s %s\n", "counters",
	       pctr_read_line(SYSDEV "/counters", buf, sizeof(buf)));
	if (pctr_read_line(SYSDEV "/reason", buf, sizeof(buf))[0])
		printf("%-12s %s\n", "reason", buf);
	taken = atoi(pctr_read_line(SYSDEV "/taken", buf, sizeof(buf)));
	printf("%-12s %s\n", "pmu",
	       taken ? "held by pctr (perf and the NMI watchdog cannot use the counters)" :
		       "not held (taken when a thread first counts)");
	printf("%-12s %s\n", "contexts",
	       pctr_read_line(SYSDEV "/contexts", buf, sizeof(buf)));
	printf("%-12s %s\n", "cpu_bindings",
	       pctr_read_line(SYSDEV "/cpu_bindings", buf, sizeof(buf)));
	printf("%-12s %s\n", "failures",
	       pctr_read_line(SYSDEV "/failures", buf, sizeof(buf)));
	show_holders(taken);
	if (ctx)
		kmod_unref(ctx);
	return 0;
}

int pctr_admin(int argc, char **argv)
{
	if (!strcmp(argv[0], "load"))
		return cmd_load(argc, argv);
	if (!strcmp(argv[0], "unload"))
		return cmd_unload(argc, argv);
	return cmd_status(argc, argv);
}
