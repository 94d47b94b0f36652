# SPDX-License-Identifier: GPL-2.0
#
# pctr: the module (through Kbuild), the libraries, the tools and the tests.
#
#   make              module + libraries + tools + selftests + examples
#   make KDIR=<tree>  build the module against another kernel tree
#   make run          boot a guest, load the module, show a readout
#   make bench        benchmarks in guests: pctr against perf, with verdicts
#   make check        install what is missing, run every test
#   make check PHASES="NAME..."  only those of its phases: dependencies,
#                     quality, host, vm-bench, sampling, packaging, cmdline,
#                     admin, doc-examples, sparc64-build, selftests,
#                     emulated-pmu, sparc64, debug-kernel, papi
#                     (testing/check -h)
#   make papi-suite   PAPI's whole test suite in every PAPI guest, into
#                     Documentation/papi.rst's table (about 40 minutes)
#   make sparc64      cross-build module, libraries, tests for sparc64
#   make soak         long fuzzing runs in guests (10^6 calls, ten minutes)
#   make install      install module, libraries, headers, tools, man pages
#   make install-user the same without the module (or: make install MODULE=0)
#                     PREFIX=/usr/local DESTDIR= libdir= mandir= as usual;
#                     the PCP agent, when built, into pmdasdir=/var/lib/pcp/pmdas

# Plain `make` builds everything above (not the first rule in the file).
.DEFAULT_GOAL := all

KVER	?= $(shell uname -r)
# The running kernel's headers, else the newest installed ones (build
# machines often run a kernel without headers).
KDIR	?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
		       $(lastword $(sort $(wildcard /lib/modules/*/build))))
# The kselftest harness comes from the installed Linux source package.
KSFT	?= $(firstword $(wildcard /usr/src/linux-source-*/tools/testing/selftests))

B	:= build
CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Wno-unused-parameter -std=gnu11
CPPFLAGS += -I$(CURDIR)/uapi -I$(CURDIR)/lib

PREFIX	?= /usr/local
DESTDIR	?=
bindir	?= $(PREFIX)/bin
libdir	?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
mandir	?= $(PREFIX)/share/man
pkgconfigdir ?= $(libdir)/pkgconfig
# MODULE=0: make install leaves the module out (install-user).
MODULE	?= 1

# libpctr's version; the major is the ABI (the SONAME, the LIBPCTR_<n>
# symbol version node) and changes only with an incompatible change.
LIB_VERSION	:= 1.0.0
LIB_MAJOR	:= $(firstword $(subst ., ,$(LIB_VERSION)))
LIB_SONAME	:= libpctr.so.$(LIB_MAJOR)

LIB_SRCS	:= lib/libpctr.c
LIB_OBJS	:= $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
LIB_SO		:= $(B)/lib/libpctr.so.$(LIB_VERSION)
LIBS		:= $(B)/lib/libpctr.a $(LIB_SO) $(B)/lib/$(LIB_SONAME) \
		   $(B)/lib/libpctr.so $(B)/lib/libpctr.pc
# The shipped commands (tools/): pctr(1) and its subcommands (tools/pctr/),
# Solaris's cputrack(1) and cpustat(8) on libcpc (tools/cpc/).
TOOLS		:= $(B)/tools/pctr $(B)/tools/cputrack $(B)/tools/cpustat
# The benchmarks (bench/): built for make bench and the guests, never
# installed.
BENCHES		:= $(B)/bench/ctxsw_bench $(B)/bench/read_bench $(B)/bench/sample_bench
SELFTESTS	:= $(patsubst selftests/%.c,$(B)/selftests/%,$(wildcard selftests/*_test.c))
# libcpc, the Solaris interface (libcpc/: libcpc.h, libcpc_impl.h), and
# libpctx, its process contexts (libpctx/: libpctx.h), in one library, with
# libpfm4's event names when its header is installed (CPC_PFM=0 leaves
# them out).  Shared (libcpc.so.<major>, symbol version LIBCPC_<major>,
# NEEDED libpctr.so.1) and static; its version and ABI rules are
# libpctr's.
CPC_VERSION	:= 1.0.0
CPC_MAJOR	:= $(firstword $(subst ., ,$(CPC_VERSION)))
CPC_SONAME	:= libcpc.so.$(CPC_MAJOR)
# libpctx's objects go with libcpc's (build/libcpc): they are one library.
CPC_SRCS	:= $(wildcard libcpc/*.c) $(wildcard libpctx/*.c)
CPC_OBJS	:= $(patsubst %.c,$(B)/libcpc/%.o,$(notdir $(CPC_SRCS)))
# The installed headers, each named; the private ones are *_private.h
# and never installed (testing/pkgtest checks both).
CPC_HDRS	:= libcpc/libcpc.h libcpc/libcpc_impl.h libpctx/libpctx.h
CPC_PRIVATE_HDRS := $(wildcard libcpc/*_private.h libpctx/*_private.h)
CPC_SO		:= $(B)/lib/libcpc.so.$(CPC_VERSION)
CPC_LIBS	:= $(B)/lib/libcpc.a $(CPC_SO) $(B)/lib/$(CPC_SONAME) \
		   $(B)/lib/libcpc.so $(B)/lib/libcpc.pc
CPC_PFM		?= $(if $(wildcard /usr/include/perfmon/pfmlib.h),1,0)
# The compatibility overlays: include directories for programs written
# for another system, installed under $(compatdir) and named by
# pkg-config: pctr-openbsd (compat/openbsd: OpenBSD's <machine/pctr.h>)
# and pctr-perfmon (Sun Perfmon's <perfmon.h> and libperfmon.a, lib/).
compatdir	?= $(includedir)/pctr-compat
COMPAT_OBSD_HDRS := compat/openbsd/machine/pctr.h compat/openbsd/machine/cpu.h
PERFMON_LIB	:= $(B)/lib/libperfmon.a
COMPAT_PC	:= $(B)/lib/pctr-openbsd.pc $(B)/lib/pctr-perfmon.pc
CPC_INC		:= -I$(CURDIR)/libcpc -I$(CURDIR)/libpctx
CPC_CPPFLAGS	:= $(CPC_INC) $(if $(filter 1,$(CPC_PFM)),-DCPC_HAVE_PFM)
CPC_LDLIBS	:= $(if $(filter 1,$(CPC_PFM)),-lpfm)
MAN3		:= $(wildcard Documentation/man/*.3)
MAN4		:= $(wildcard Documentation/man/*.4)
MAN1		:= $(wildcard Documentation/man/*.1)
MAN8		:= $(wildcard Documentation/man/*.8)
# Function names documented in another page: "name:page" for a one-line
# ".so" page, as man-pages links them.
MAN3_LINKS	:= pctr_close:pctr_open pctr_map:pctr_open pctr_release:pctr_open \
		   pctr_read_n:pctr_read pctr_vtsc:pctr_read pctr_read_times:pctr_read \
		   pctr_read_all:pctr_read pctr_set_event:pctr_set \
		   pctr_event_fn:pctr_set pctr_zero:pctr_set \
		   pctr_preset:pctr_set rdtsc:rdpmc rdtscp:rdpmc \
		   pctr_backend_reason:pctr_strerror \
		   cpc_disable:cpc_enable cpc_close:cpc_open cpc_npic:cpc_open cpc_caps:cpc_open \
		   cpc_cciname:cpc_open cpc_cpuref:cpc_open \
		   cpc_set_destroy:cpc_set_create \
		   cpc_set_add_request:cpc_set_create \
		   cpc_request_preset:cpc_set_create \
		   cpc_walk_requests:cpc_set_create \
		   cpc_request_fn:cpc_set_create \
		   cpc_buf_destroy:cpc_buf_create cpc_buf_get:cpc_buf_create \
		   cpc_buf_set:cpc_buf_create cpc_buf_hrtime:cpc_buf_create \
		   cpc_buf_tick:cpc_buf_create cpc_buf_sub:cpc_buf_create \
		   cpc_buf_add:cpc_buf_create cpc_buf_copy:cpc_buf_create \
		   cpc_buf_zero:cpc_buf_create cpc_buf_times:cpc_buf_create \
		   cpc_set_sample:cpc_bind_curlwp cpc_unbind:cpc_bind_curlwp \
		   cpc_set_restart:cpc_bind_curlwp \
		   cpc_bind_pctx:cpc_bind_curlwp cpc_bind_cpu:cpc_bind_curlwp \
		   cpc_walk_events_pic:cpc_walk_events_all \
		   cpc_walk_generic_events_all:cpc_walk_events_all \
		   cpc_walk_generic_events_pic:cpc_walk_events_all \
		   cpc_walk_attrs:cpc_walk_events_all \
		   $(if $(wildcard Documentation/man/pctx_capture.3),pctx_release:pctx_capture) \
		   $(LIBPCTX_MAN3_LINKS)

# libpctx (issue 16): its functions are in libcpc; -lpctx links libcpc
# too, through a linker script libpctx.so and an empty libpctx.a, so
# that Solaris's "-lcpc -lpctx" works unchanged.
LIBPCTX_MAN3_LINKS := pctx_create:libpctx pctx_set_events:libpctx \
		      pctx_run:libpctx pctx_terminate:libpctx \
		      cpc_terminate:libpctx
LIBPCTX_LIBS	:= $(B)/lib/libpctx.so $(B)/lib/libpctx.a

$(B)/lib/libpctx.so:
	@mkdir -p $(dir $@)
	echo 'INPUT(-lcpc)' >$@

$(B)/lib/libpctx.a:
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@

.PHONY: all module userspace lib libcpc examples tools benches selftests run bench check papi-suite soak clean install sparc64 \
	install-user uninstall modules_install help FORCE

all: module userspace

# $(call cc_prog,FLAGS,SOURCES,LINK-ARGS): each source compiled alone into
# $(B)/obj/PROGRAM/, then linked with LINK-ARGS into the program: a
# compiler cache (make check's ccache, testing/check) keeps compiles, and
# cannot keep a compile-and-link.
prog_obj = $(B)/obj/$(patsubst $(B)/%,%,$@)
define cc_prog
@mkdir -p $(prog_obj)
set -e; for s in $(2); do \
	$(CC) $(1) -c -o $(prog_obj)/$$(basename $$s .c).o $$s; done
$(CC) $(1) -o $@ $(patsubst %.c,$(prog_obj)/%.o,$(notdir $(2))) $(3)
endef

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "no kernel headers found: install linux-headers-$(KVER) or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace: lib libcpc tools benches selftests examples

lib: $(LIBS) $(PERFMON_LIB) $(COMPAT_PC)

# One set of objects for both libraries: position-independent, and
# exporting only what lib/pctr.h marks PCTR_API.
$(B)/lib/%.o: lib/%.c lib/pctr.h lib/pctr_internal.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/lib/libpctr.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS) lib/libpctr.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libpctr.map -Wl,-z,defs \
		-o $@ $(LIB_OBJS)

$(B)/lib/$(LIB_SONAME): $(LIB_SO)
	ln -sf $(notdir $<) $@

$(B)/lib/libpctr.so: $(B)/lib/$(LIB_SONAME)
	ln -sf $(notdir $<) $@

# The .pc files name the install directories: remake them when they
# change.
PC_VARS := $(PREFIX)|$(libdir)|$(includedir)|$(compatdir)|$(LIB_VERSION)|$(CPC_VERSION)|$(CPC_PFM)
$(B)/lib/pc.vars: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' >$@

FORCE:

# Directories under the prefix are written ${prefix}/..., so that
# pkg-config --define-prefix can relocate the install.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
$(B)/lib/libpctr.pc: lib/libpctr.pc.in $(B)/lib/pc.vars
	sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@libdir@|$(call pc_rel,$(libdir))|' \
	    -e 's|@includedir@|$(call pc_rel,$(includedir))|' \
	    -e 's|@version@|$(LIB_VERSION)|' $< >$@

# libperfmon.a: Perfmon's routines out of line (lib/perfmon.h says which
# an architecture has).
$(B)/lib/perfmon.o: lib/perfmon.c lib/perfmon.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(PERFMON_LIB): $(B)/lib/perfmon.o
	rm -f $@
	$(AR) rcs $@ $^

# The overlays' .pc files (compat/*.pc.in).
$(B)/lib/pctr-%.pc: compat/pctr-%.pc.in $(B)/lib/pc.vars
	sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@libdir@|$(call pc_rel,$(libdir))|' \
	    -e 's|@includedir@|$(call pc_rel,$(includedir))|' \
	    -e 's|@compatdir@|$(call pc_rel,$(compatdir))|' \
	    -e 's|@version@|$(LIB_VERSION)|' $< >$@

libcpc: $(CPC_LIBS) $(LIBPCTX_LIBS)

# As libpctr's: one set of position-independent objects for both
# libraries, exporting only what the headers mark CPC_API.
$(B)/libcpc/%.o: libcpc/%.c $(CPC_HDRS) $(CPC_PRIVATE_HDRS) lib/pctr.h \
		 uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CPC_CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/libcpc/%.o: libpctx/%.c $(CPC_HDRS) $(CPC_PRIVATE_HDRS) lib/pctr.h \
		 uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CPC_CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/lib/libcpc.a: $(CPC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Linked against libpctr.so (NEEDED libpctr.so.1), and libpfm's when used.
$(CPC_SO): $(CPC_OBJS) libcpc/libcpc.map $(B)/lib/libpctr.so
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(CPC_SONAME) \
		-Wl,--version-script=libcpc/libcpc.map -Wl,-z,defs \
		-o $@ $(CPC_OBJS) -L$(B)/lib -lpctr $(CPC_LDLIBS)

$(B)/lib/$(CPC_SONAME): $(CPC_SO)
	ln -sf $(notdir $<) $@

$(B)/lib/libcpc.so: $(B)/lib/$(CPC_SONAME)
	ln -sf $(notdir $<) $@

# libpctr is Requires.private: a libcpc program calls no pctr_ function
# itself, but a static link needs it (and libpfm).
$(B)/lib/libcpc.pc: libcpc/libcpc.pc.in $(B)/lib/pc.vars
	sed -e 's|@prefix@|$(PREFIX)|' \
	    -e 's|@libdir@|$(call pc_rel,$(libdir))|' \
	    -e 's|@includedir@|$(call pc_rel,$(includedir))|' \
	    -e 's|@version@|$(CPC_VERSION)|' \
	    -e 's|@libs_private@|$(CPC_LDLIBS)|' -e '/^Libs.private: $$/d' $< >$@

# Programs written against libcpc as a Solaris program would be.
EXAMPLES	:= $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))

examples: $(EXAMPLES)

$(B)/examples/%: examples/%.c $(B)/lib/libcpc.a $(B)/lib/libpctr.a $(CPC_HDRS)
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CPC_INC) $(CFLAGS),$<,\
		$(B)/lib/libcpc.a $(B)/lib/libpctr.a $(CPC_LDLIBS))

tools: $(TOOLS)

benches: $(BENCHES)

$(B)/bench/%: bench/%.c bench/bench.h $(B)/lib/libpctr.a lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CFLAGS) -pthread,$<,$(B)/lib/libpctr.a)

# read_bench: the reads and their table, and the parts of a round.
$(B)/bench/read_bench: bench/read_bench.c bench/read_bench_parts.c bench/read_bench.h \
		bench/bench.h $(B)/lib/libpctr.a lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CFLAGS) -pthread,bench/read_bench.c \
		bench/read_bench_parts.c,$(B)/lib/libpctr.a)

# pctr load, unload and status (tools/pctr/admin.c): through libkmod.
ADMIN_SRCS	:= tools/pctr/admin.c tools/pctr/admin.h lib/pctr_internal.h
ADMIN_LDLIBS	:= -lkmod

# pctr(1) and its selfcheck, stat, record, report and admin subcommands
# (report symbolises with elfutils' libdwfl and draws flame graphs in
# flame.c; stat writes JSON with json-c).
# events.c: the event names every subcommand reads.
PCTR_SRCS	:= tools/pctr/pctr.c tools/pctr/events.c \
		   tools/pctr/selfcheck.c tools/pctr/selfcheck_measure.c \
		   tools/pctr/selfcheck_perf.c tools/pctr/selfcheck_backends.c \
		   tools/pctr/stat.c tools/pctr/stat_count.c tools/pctr/stat_print.c \
		   tools/pctr/record.c tools/pctr/record_file.c \
		   tools/pctr/record_follow.c \
		   tools/pctr/record_system.c tools/pctr/report.c \
		   tools/pctr/flame.c \
		   tools/pctr/symbols.c tools/pctr/top.c tools/pctr/top_count.c
PCTR_HDRS	:= tools/pctr/events.h tools/pctr/fail.h tools/pctr/flame.h \
		   tools/pctr/record.h tools/pctr/record_internal.h \
		   tools/pctr/selfcheck.h tools/pctr/selfcheck_internal.h \
		   tools/pctr/stat.h tools/pctr/stat_internal.h tools/libmsg.h \
		   tools/pctxfollow.h libpctx/pctx_callbacks_private.h \
		   tools/pctr/symbols.h tools/pctr/top.h
$(B)/tools/pctr: $(PCTR_SRCS) $(PCTR_HDRS) $(ADMIN_SRCS) \
		 $(B)/lib/libcpc.a $(CPC_HDRS) \
		 $(B)/lib/libpctr.a lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CPC_CPPFLAGS) $(CFLAGS) -pthread,$(PCTR_SRCS) \
		$(filter %.c,$(ADMIN_SRCS)),$(B)/lib/libcpc.a $(B)/lib/libpctr.a \
		$(LDFLAGS) $(CPC_LDLIBS) $(ADMIN_LDLIBS) -ldw -lelf -ljson-c)

# pmdapctr (tools/pmdapctr/), the PCP agent, when PCP's agent headers are
# installed (libpcp-pmda3-dev); PMDA=0 leaves it out.  Built into
# build/pmdapctr (not build/tools: the guests copy that folder's files).  Its help text is
# compiled by PCP's newhelp; it installs where PCP keeps agents.
# Asked of the linker, not of /usr/include: Debian's cross compilers see
# the host's headers too, and the sparc64 build must leave the agent out
# where the target has no libpcp_pmda (libpcp-pmda3-dev brings both).
PMDA		?= $(shell echo 'int main(void) { return 0; }' | \
			$(CC) -x c -o /dev/null - -lpcp_pmda -lpcp \
			>/dev/null 2>&1 && echo 1 || echo 0)
PMDA_DIR	:= $(B)/pmdapctr
PMDA_SRCS	:= tools/pmdapctr/pmdapctr.c tools/pmdapctr/counting.c \
		   tools/pmdapctr/config.c tools/pctr/events.c
PMDA_HDRS	:= tools/pmdapctr/counting.h tools/pmdapctr/domain.h \
		   tools/pctr/events.h
PMDA_FILES	:= tools/pmdapctr/Install tools/pmdapctr/Remove \
		   tools/pmdapctr/pmns tools/pmdapctr/root tools/pmdapctr/help \
		   tools/pmdapctr/domain.h tools/pmdapctr/pctr.conf
pmdasdir	?= /var/lib/pcp/pmdas
NEWHELP		?= $(firstword $(wildcard /usr/lib/pcp/bin/newhelp /usr/libexec/pcp/bin/newhelp) newhelp)
ifeq ($(PMDA),1)
tools: $(PMDA_DIR)/pmdapctr $(PMDA_DIR)/help.dir
endif

$(PMDA_DIR)/pmdapctr: $(PMDA_SRCS) $(PMDA_HDRS) $(B)/lib/libpctr.a lib/pctr.h \
		      uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CFLAGS),$(PMDA_SRCS),$(B)/lib/libpctr.a \
		$(LDFLAGS) -lpcp_pmda -lpcp)

$(PMDA_DIR)/help.dir: tools/pmdapctr/help tools/pmdapctr/root \
		      tools/pmdapctr/pmns tools/pmdapctr/domain.h
	@mkdir -p $(dir $@)
	cd tools/pmdapctr && $(NEWHELP) -n root -v 2 -o $(CURDIR)/$(PMDA_DIR)/help help

# cputrack and cpustat: libcpc, libpctx, the -c parser and the setup
# they share.
$(B)/tools/cputrack $(B)/tools/cpustat: $(B)/tools/%: tools/cpc/%.c \
		 tools/cpc/cpcspec.c tools/cpc/cpcspec.h tools/cpc/cpctool.c tools/cpc/cpctool.h \
		 tools/libmsg.h tools/pctxfollow.h libpctx/pctx_callbacks_private.h \
		 $(B)/lib/libcpc.a \
		 $(B)/lib/libpctr.a $(CPC_HDRS) lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CPC_CPPFLAGS) $(CFLAGS) -pthread,$< \
		tools/cpc/cpcspec.c tools/cpc/cpctool.c,$(B)/lib/libcpc.a \
		$(B)/lib/libpctr.a $(LDFLAGS) $(CPC_LDLIBS))

selftests: $(SELFTESTS)

# A test is its own .c file and any other .c file given it as a
# prerequisite below.
$(B)/selftests/%: selftests/%.c selftests/pctr_test.h $(B)/lib/libpctr.a uapi/linux/pctr.h
	@test -n "$(KSFT)" || { echo "kselftest harness not found: run testing/vm/install-deps" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) -I$(KSFT) $(CFLAGS) -Wno-sign-compare -Wno-clobbered -pthread,\
		$(filter %.c,$^),$(B)/lib/libpctr.a)

CPC_TESTS	:= $(B)/selftests/cpc_test $(B)/selftests/cpc_inherit_test \
		   $(B)/selftests/cpc_bind_test
$(CPC_TESTS): selftests/cpc_test.h
$(CPC_TESTS) $(B)/selftests/cpc_headers_test \
$(B)/selftests/pctx_test: $(B)/selftests/%: \
			 selftests/%.c selftests/pctr_test.h \
			 $(B)/lib/libcpc.a $(B)/lib/libpctr.a $(CPC_HDRS) \
			 uapi/linux/pctr.h
	@test -n "$(KSFT)" || { echo "kselftest harness not found: run testing/vm/install-deps" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(call cc_prog,$(CPPFLAGS) $(CPC_CPPFLAGS) -I$(KSFT) $(CFLAGS) -Wno-sign-compare \
		-Wno-clobbered -pthread,$<,$(B)/lib/libcpc.a $(B)/lib/libpctr.a $(CPC_LDLIBS))

# Two builds of one test: page versions 2 and 1.
$(B)/selftests/page_abi_test $(B)/selftests/page_abi_v1_test: selftests/page_abi.h

# One test, its stressors in a file each.
$(B)/selftests/notify_bind_stress_test: selftests/nb_stress.h \
	selftests/nb_workers.c selftests/nb_inheritor.c \
	selftests/nb_cpu_binder.c selftests/nb_thread_binder.c

# The tests that run the tools share their runner.
$(B)/selftests/cputrack_test $(B)/selftests/stat_test: selftests/run_tool.h

# Its call chain test follows frame pointers.
$(B)/selftests/sample_test: CFLAGS += -fno-omit-frame-pointer

# pctr record's workload (testing/check): -O0, so that every function, leaves
# too, has a frame for the call chains (GCC drops it in leaves otherwise).
selftests: $(B)/selftests/sample_work
$(B)/selftests/sample_work: selftests/sample_work.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-omit-frame-pointer -pthread -o $@ $<

# security_test's set-id program: static, its text at a known address
# (EXEC_SPIN_BASE in security_test.c).
selftests: $(B)/selftests/exec_spin
$(B)/selftests/exec_spin: selftests/exec_spin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -no-pie -Wl,-Ttext-segment=0x37000000 -o $@ $<

# An OpenBSD pctr(4) program built unchanged against the OpenBSD overlay
# (compat/openbsd, as pkg-config pctr-openbsd gives it), warnings as
# errors: openbsd_test runs it.
OBSD_PCTR	:= $(B)/selftests/obsd_pctr
selftests: $(OBSD_PCTR)
$(OBSD_PCTR): selftests/openbsd/obsd_pctr.c $(COMPAT_OBSD_HDRS) lib/pctr.h \
	      uapi/linux/pctr.h $(B)/lib/libpctr.a
	@mkdir -p $(dir $@)
	$(call cc_prog,-I$(CURDIR)/compat/openbsd -I$(CURDIR)/lib -I$(CURDIR)/uapi \
		$(CFLAGS) -Werror,$<,$(B)/lib/libpctr.a)

# make run: plain TCG first (no PMU: pctr says so and offers the TSC),
# then the Intel backend counting a program on the bench's EMULATED PMU
# (testing/vm/qemu: our QEMU patch, a test instrument, not hardware; the
# first run builds it), with the kernel's perf counting the same program.
run: userspace
	@echo "=== pctr in a plain QEMU guest (Debian's kernel; TCG has no PMU: pctr says so and offers the TSC) ==="
	testing/vm/run -- sh -c 'pctr info && echo && pctr read'
	@echo
	@echo "=== The Intel backend on the bench's EMULATED PMU (QEMU patched by testing/vm/qemu; not real hardware) ==="
	testing/vm/qemu/build
	@mkdir -p $(B)/emu
	@# glibc's warning about getgrgid_r in a static program is not ours to act on.
	@echo "$(CC) -O2 -static ... -o $(B)/emu/loop testing/vm/emu/loop.c $(B)/lib/libpctr.a"
	@out=$$($(CC) -O2 -static $(CPPFLAGS) -o $(B)/emu/loop testing/vm/emu/loop.c \
		$(B)/lib/libpctr.a 2>&1) || { echo "$$out"; exit 1; }; \
	 [ -z "$$out" ] || echo "$$out" | grep -v -e getgrgid_r -e "in function .pctr_msg_eacces" || true
	testing/vm/run --emulated-pmu intel --perf --add $(B)/emu/loop -- sh -c \
		'pctr info | head -n 6; echo; \
		 echo "pctr counting a program of 1000000 two-instruction iterations (rdpmc around the loop):"; \
		 ./loop --pctr 1000000; echo; \
		 echo "perf counting the whole program:"; \
		 perf stat -e instructions:u,cycles:u,branches:u ./loop 1000000 2>&1 | grep -E "instructions|cycles|branches"; \
		 echo; echo "pctr stat counting the whole program (its main thread):"; \
		 pctr stat -e instructions,cycles,branches -- ./loop 1000000'

# Benchmarks (bench/bench): ctxsw_bench and read_bench on the bench's
# EMULATED Intel PMU (QEMU patched by testing/vm/qemu, built first if it is
# not cached), in plain TCG time and under -icount (instructions), side by
# side with one verdict per target; without that QEMU, or with
# BENCH_ARGS=--sim, on the simulated PMU.
BENCH_ARGS ?=
bench: userspace
	bench/bench $(BENCH_ARGS)

# PAPI's whole test suite in every guest of make check's PAPI job, against
# pctr and against perf_event, written into Documentation/papi.rst's table
# (testing/papi/whole; about 40 minutes: make check runs part of it).
papi-suite: userspace
	testing/papi/whole

# make check's phases, by name (testing/check --help lists them): empty
# runs them all.
PHASES ?=
check:
	testing/check $(PHASES)

# sparc64, cross-built (testing/vm/build-sparc64): pctr.ko against sparc64
# kernel trees prepared from Debian's linux-source (cached under
# /var/cache/pctr/kernel), W=1 and sparse clean; libpctr, libcpc,
# libperfmon, the tools and tests into build/sparc64/user.
# SPARC64_SERIES="6.1 6.12" by default.
SPARC64_SERIES ?= 6.1 6.12
sparc64:
	testing/vm/build-sparc64 $(SPARC64_SERIES)

# Long fuzzing (testing/soak, Documentation/testing.rst): 10^6 calls, then
# ten minutes with 200 threads and CPU hotplug, on two vCPUs, then a
# kmemleak scan; prints its figures.  On the debug kernel by default;
# SOAK_KERNELS="debug 6.12.95+deb12-amd64" adds a production kernel
# (without kmemleak there).  SOAK_CALLS, SOAK_SECONDS, SOAK_THREADS
# shorten or lengthen it.
SOAK_KERNELS ?= debug
soak: userspace
	testing/soak $(SOAK_KERNELS)

install: install-user $(if $(filter 0,$(MODULE)),,modules_install)

# Everything but the module: needs no kernel headers.
install-user: lib libcpc tools
	install -d $(DESTDIR)$(includedir)/linux $(DESTDIR)$(libdir) \
		$(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(bindir) \
		$(DESTDIR)$(mandir)/man3 $(DESTDIR)$(mandir)/man4 \
		$(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man8
	install -m 644 uapi/linux/pctr.h $(DESTDIR)$(includedir)/linux/
	install -m 644 lib/pctr.h $(CPC_HDRS) $(DESTDIR)$(includedir)/
	install -m 644 $(B)/lib/libpctr.a $(B)/lib/libcpc.a $(DESTDIR)$(libdir)/
	install -m 755 $(LIB_SO) $(CPC_SO) $(DESTDIR)$(libdir)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(libdir)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(libdir)/libpctr.so
	ln -sf $(notdir $(CPC_SO)) $(DESTDIR)$(libdir)/$(CPC_SONAME)
	ln -sf $(CPC_SONAME) $(DESTDIR)$(libdir)/libcpc.so
	install -m 644 $(LIBPCTX_LIBS) $(DESTDIR)$(libdir)/
	install -m 644 $(B)/lib/libpctr.pc $(B)/lib/libcpc.pc $(DESTDIR)$(pkgconfigdir)/
	install -d $(DESTDIR)$(compatdir)/openbsd/machine $(DESTDIR)$(compatdir)/perfmon
	install -m 644 $(COMPAT_OBSD_HDRS) $(DESTDIR)$(compatdir)/openbsd/machine/
	install -m 644 lib/perfmon.h $(DESTDIR)$(compatdir)/perfmon/
	install -m 644 $(PERFMON_LIB) $(DESTDIR)$(libdir)/
	install -m 644 $(COMPAT_PC) $(DESTDIR)$(pkgconfigdir)/
	install -m 755 $(TOOLS) $(DESTDIR)$(bindir)/
	install -m 644 $(MAN3) $(DESTDIR)$(mandir)/man3/
	install -m 644 $(MAN4) $(DESTDIR)$(mandir)/man4/
	install -m 644 $(MAN1) $(DESTDIR)$(mandir)/man1/
	install -m 644 $(MAN8) $(DESTDIR)$(mandir)/man8/
	@set -e; for l in $(MAN3_LINKS); do \
		echo ".so man3/$${l#*:}.3" >$(DESTDIR)$(mandir)/man3/$${l%%:*}.3; \
	done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi
ifeq ($(PMDA),1)
	install -d $(DESTDIR)$(pmdasdir)/pctr
	install -m 755 $(PMDA_DIR)/pmdapctr tools/pmdapctr/Install \
		tools/pmdapctr/Remove $(DESTDIR)$(pmdasdir)/pctr/
	install -m 644 $(filter-out %/Install %/Remove,$(PMDA_FILES)) \
		$(PMDA_DIR)/help.dir $(PMDA_DIR)/help.pag $(DESTDIR)$(pmdasdir)/pctr/
endif

uninstall:
	rm -f $(DESTDIR)$(includedir)/linux/pctr.h $(DESTDIR)$(includedir)/pctr.h \
	      $(addprefix $(DESTDIR)$(includedir)/,$(notdir $(CPC_HDRS))) \
	      $(addprefix $(DESTDIR)$(libdir)/,libpctr.a libpctr.so \
		$(LIB_SONAME) $(notdir $(LIB_SO)) libcpc.a libcpc.so \
		$(CPC_SONAME) $(notdir $(CPC_SO)) $(notdir $(LIBPCTX_LIBS))) \
	      $(DESTDIR)$(pkgconfigdir)/libpctr.pc $(DESTDIR)$(pkgconfigdir)/libcpc.pc \
	      $(addprefix $(DESTDIR)$(compatdir)/openbsd/machine/,$(notdir $(COMPAT_OBSD_HDRS))) \
	      $(DESTDIR)$(compatdir)/perfmon/perfmon.h $(DESTDIR)$(libdir)/libperfmon.a \
	      $(addprefix $(DESTDIR)$(pkgconfigdir)/,$(notdir $(COMPAT_PC))) \
	      $(addprefix $(DESTDIR)$(bindir)/,$(notdir $(TOOLS))) \
	      $(addprefix $(DESTDIR)$(mandir)/man3/,$(notdir $(MAN3))) \
	      $(addprefix $(DESTDIR)$(mandir)/man4/,$(notdir $(MAN4))) \
	      $(addprefix $(DESTDIR)$(mandir)/man1/,$(notdir $(MAN1))) \
	      $(addprefix $(DESTDIR)$(mandir)/man8/,$(notdir $(MAN8))) \
	      $(foreach l,$(MAN3_LINKS),$(DESTDIR)$(mandir)/man3/$(firstword $(subst :, ,$(l))).3)
	rm -f $(addprefix $(DESTDIR)$(pmdasdir)/pctr/,pmdapctr help.dir help.pag \
		$(notdir $(PMDA_FILES)))
	-rmdir $(DESTDIR)$(pmdasdir)/pctr 2>/dev/null

modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	rm -rf $(B)
	@test -z "$(KDIR)" -o ! -d "$(KDIR)" || $(MAKE) -s -C $(KDIR) M=$(CURDIR) clean
