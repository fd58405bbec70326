package finalizers

import (
	"strings"
)

// counterpartSuffixes are the endings under which a status field names a thing by name or id.
var counterpartSuffixes = []string{"name", "identifier", "id"}

// relationWords begin a field that names another object of the same kind (its parent, its
// source), not the object's own counterpart.
var relationWords = []string{"parent", "owner", "source", "previous", "child", "base", "template", "related"}

// recordedCounterpart names the object's counterpart outside the cluster that a status field
// records: a field anywhere under status whose name, less a `Name`/`Id`/`Identifier` suffix, ends
// in the object's own kind (`status.remoteTrainingJobName` of a TrainingJob) and that holds a
// value other than the object's own name. The field names a thing of the object's own kind that
// is not this object: the one the controller created elsewhere for it, under the name that system
// knows it by, which a strip leaves behind. A field that begins with a relation (`parent…`,
// `source…`) names another object of the kind, and the spec is what the user chose: neither is
// named. "" when it is not one.
func recordedCounterpart(path []string, value, kind, ownName string) string {
	if len(path) < 2 || path[0] != "status" || kind == "" || value == "" || value == ownName || len(value) > 253 || strings.ContainsAny(value, " \t\n") {
		return ""
	}
	key := strings.ToLower(path[len(path)-1])
	for _, s := range counterpartSuffixes {
		stem, ok := strings.CutSuffix(key, s)
		if !ok {
			continue
		}
		if !strings.HasSuffix(stem, strings.ToLower(kind)) {
			return ""
		}
		for _, w := range relationWords {
			if strings.HasPrefix(stem, w) {
				return ""
			}
		}
		return "external " + kind
	}
	return ""
}

// actsUnderWords end the name of a spec field that names what the object acts under.
var actsUnderWords = []string{"role", "key", "policy"}

// actsUnderInSpec reports whether a spec field names what the object acts under — the role it
// assumes, the key it encrypts with, the policy it is granted (`spec.roleArn`,
// `spec.kmsKeyId`): like a network it is placed into (placementInSpec), that existed before the
// object and outlives it, and a strip leaves nothing of it behind. Only a status records a role
// or key the controller created.
func actsUnderInSpec(path []string) bool {
	if len(path) < 2 || path[0] != "spec" {
		return false
	}
	key := strings.ToLower(path[len(path)-1])
	for _, s := range []string{"arn", "ids", "id"} {
		if stem, ok := strings.CutSuffix(key, s); ok {
			for _, w := range actsUnderWords {
				if strings.HasSuffix(stem, w) {
					return true
				}
			}
			return false
		}
	}
	return false
}
