package protocol

// App storage migrations (docs/host-control-protocol.md, "Storage
// migrations"): spec 001 Host responsibilities, "Create app storage
// namespace and apply migrations only after review"; spec 000 Storage and
// data boundary, rule 6, "Host core state must not be writable by app-owned
// migrations"; spec 000 Readiness, "storage migrations are complete or
// waiting for user approval".

// MethodMigrate applies the pending storage migrations of an installed app
// once the user approved them.
const MethodMigrate = "app/migrate"

// CodeMigrationRefused answers app/migrate (or app/install, app/update with
// consent.migrations) when a migration reaches outside the app's own
// namespace; the message and data.findings name the migration file.
const CodeMigrationRefused = -32010

// MigrateParams names the app whose pending migrations the user approved.
type MigrateParams struct {
	AppID   string  `json:"appId"`
	Consent Consent `json:"consent"`
}

// MigrateResult lists the migrations app/migrate applied, by name (the
// file name inside the package's migrations folder), in order.
type MigrateResult struct {
	OK      bool     `json:"ok"`
	AppID   string   `json:"appId"`
	Applied []string `json:"applied"`
}

// Migration states of host/observe.
const (
	MigrationPending = "pending"
	MigrationApplied = "applied"
	MigrationRefused = "refused"
)

// MigrationRecord is what the host knows of one storage migration of an
// installed app (spec 000 Runtime contract 9: provenance on storage
// migrations).
type MigrationRecord struct {
	AppID   string `json:"appId"`
	Version string `json:"version,omitempty"`
	Name    string `json:"name"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
}

// StorageNamespace is one app storage namespace that exists on the host,
// its owner and the tables in it (spec 002, Storage boundary).
type StorageNamespace struct {
	AppID     string   `json:"appId"`
	Namespace string   `json:"namespace"`
	Tables    []string `json:"tables"`
}

// HostState is the digest of the host's core state: what it keeps of
// installed apps and its own configuration, which no app-owned migration may
// write (spec 000 Storage and data boundary, rule 6). It may change with the
// host's own bookkeeping (an install, an applied migration), never with a
// refused migration.
type HostState struct {
	Digest string `json:"digest"`
}
