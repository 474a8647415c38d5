//go:build !linux

package serve

import "errors"

func mountTmpfs(dir, opts string) error { return errors.New("tmpfs mounts are Linux's") }

func unmount(dir string) {}
