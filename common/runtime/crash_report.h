#pragma once
// A recurlab process that dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
// first prints where: the signal, the faulting address and one line per stack frame, each as
// "module+0xoffset (symbol+0xoffset)", which `addr2line -f -C -e module offset` turns into a
// source line. Then the signal's default action runs as before (the same exit status, a core
// dump where enabled). Meant for machines where no debugger runs (a GPU node's slot), so that a
// crash in a log says where it was.
namespace recurlab {

// Installs the handlers (on an alternate stack, so a stack overflow is reported too); once per
// process, before any work. RECURLAB_NO_CRASH_REPORT=1 leaves the signals alone.
void reportFatalSignals();

}  // namespace recurlab
