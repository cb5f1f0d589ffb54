package sqlx

import "syscall"

// yieldCPU gives the CPU to another runnable thread, if any (sched_yield).
func yieldCPU() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
