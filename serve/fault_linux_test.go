package serve

import "syscall"

// mountTmpfs mounts a tmpfs with the given options (size=4m) on dir.
func mountTmpfs(dir, opts string) error { return syscall.Mount("tmpfs", dir, "tmpfs", 0, opts) }

func unmount(dir string) { syscall.Unmount(dir, syscall.MNT_DETACH) }
