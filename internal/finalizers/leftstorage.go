package finalizers

import (
	"regexp"
	"strings"
)

// storageURIRe matches a location in an object store or a remote file system, by its scheme:
// what a backup, snapshot or export object records as where its data went.
var storageURIRe = regexp.MustCompile(`^(s3|s3a|gs|gcs|azblob|abfss?|wasbs?|oss|cos|obs|swift|b2|hdfs|webhdfs|minio|r2)://[^\s/]+\S*$`)

// serverObjects are the endings of status fields in which a controller records what it
// created inside a database or message server outside the cluster (`postgresRole`,
// `databaseName`, `topicName`), with what they name: a compound name only, since a bare `role`
// or `user` is as often a state (`role: primary`).
var serverObjects = []struct{ suffix, what string }{
	{"rolename", "server-side role"}, {"role", "server-side role"},
	{"username", "server-side user"}, {"user", "server-side user"},
	{"databasename", "server-side database"}, {"dbname", "server-side database"}, {"database", "server-side database"},
	{"schemaname", "server-side schema"}, {"schema", "server-side schema"},
	{"topicname", "server-side topic"}, {"topic", "server-side topic"},
	{"queuename", "server-side queue"}, {"queue", "server-side queue"}, {"vhost", "server-side virtual host"},
}

// bareState are the bare words serverObjects end with, which alone are as often a state or a
// setting as a name (`role: primary`, `user: root`).
var bareState = map[string]bool{"role": true, "user": true, "database": true, "schema": true, "topic": true, "queue": true, "vhost": true}

// recordedStorage names what a status field records outside the cluster in storage terms, from
// its path, lower-cased last key and value: a storage URI (where a backup or export put its
// data), or a server-side object (a role, a database, a topic) the controller created. Only the
// status counts: a spec names what the object reads as often as what it made (a restore's
// source, a bucket it watches). "" when it records none of these.
func recordedStorage(path []string, key, value string) string {
	if strings.ContainsAny(value, " \t\n") || len(path) < 2 || path[0] != "status" {
		return ""
	}
	switch {
	case storageURIRe.MatchString(value):
		return "object storage location"
	case len(value) <= 128:
		for _, so := range serverObjects {
			if strings.HasSuffix(key, so.suffix) && !bareState[key] {
				return so.what
			}
		}
	}
	return ""
}
