# SPDX-License-Identifier: GPL-2.0
#
# pctr: the module (through Kbuild), the library, the tools and the tests.
#
#   make              module + library + tools + selftests
#   make KDIR=<tree>  build the module against another kernel tree
#   make run          boot a guest, load the module, show a readout
#   make bench        benchmarks in a guest (figures, side by side)
#   make check        install what is missing, run every test
#   make install      install module, library, headers, tools, man pages

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

LIB_SRCS	:= lib/libpctr.c
TOOLS		:= $(B)/tools/pctr $(B)/tools/ctxsw_bench
SELFTESTS	:= $(patsubst selftests/%.c,$(B)/selftests/%,$(wildcard selftests/*_test.c))

.PHONY: all module userspace lib tools selftests run bench check clean install \
	modules_install help

all: module userspace

help:
	@sed -n '3,11s/^# \{0,1\}//p' Makefile

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "no kernel headers found: install linux-headers-$(KVER) or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace: lib tools selftests

lib: $(B)/lib/libpctr.a

$(B)/lib/%.o: lib/%.c lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(B)/lib/libpctr.a: $(patsubst lib/%.c,$(B)/lib/%.o,$(LIB_SRCS))
	$(AR) rcs $@ $^

tools: $(TOOLS)

$(B)/tools/%: tools/%.c $(B)/lib/libpctr.a lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -pthread -o $@ $< $(B)/lib/libpctr.a

# pctr(1) and its selfcheck subcommand.
$(B)/tools/pctr: tools/pctr.c tools/selfcheck.c tools/selfcheck.h \
		 $(B)/lib/libpctr.a lib/pctr.h uapi/linux/pctr.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -pthread -o $@ tools/pctr.c tools/selfcheck.c \
		$(B)/lib/libpctr.a

selftests: $(SELFTESTS)

$(B)/selftests/%: selftests/%.c selftests/pctr_test.h $(B)/lib/libpctr.a uapi/linux/pctr.h
	@test -n "$(KSFT)" || { echo "kselftest harness not found: run tools/vm/install-deps" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(KSFT) $(CFLAGS) -Wno-sign-compare -pthread -o $@ $< $(B)/lib/libpctr.a

run: userspace
	tools/vm/run -- sh -c 'pctr info && echo && pctr read'

# Benchmarks print figures measured side by side in one guest run.
bench: userspace
	tools/vm/run --param pmu=sim -- ctxsw_bench

check:
	tools/check

install: userspace modules_install
	install -d $(DESTDIR)$(PREFIX)/include/linux $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/bin
	install -m 644 uapi/linux/pctr.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 644 lib/pctr.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(B)/lib/libpctr.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/

modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	rm -rf $(B)
	@test -z "$(KDIR)" -o ! -d "$(KDIR)" || $(MAKE) -s -C $(KDIR) M=$(CURDIR) clean
