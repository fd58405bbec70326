package finalizers

import "strings"

// describesProcess reports a spec key under which an object describes a process it runs: a
// container (or a list of them) with its image, command, arguments and environment, and what
// that process loads or starts (a kernel module to modprobe, a binary). Names there are the
// process's own (a kernel module i915, an image, a program), not references to other objects
// of the product's API: the reference walk of custom fields does not look inside, so that a
// `moduleName` under a Module's container is never read as a Module named after the kernel
// module. Core references of a pod's containers (Secrets and ConfigMaps in env, volumes) are
// read by their own rules, not by this walk.
func describesProcess(key string) bool {
	switch strings.ToLower(key) {
	case "container", "containers", "initcontainers", "ephemeralcontainers":
		return true
	}
	return false
}
