package mockhost

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// appDBFile is the name of an app's own SQLite database in its data folder
// (spec 001, Storage placement: "per-app SQLite files").
const appDBFile = "app.sqlite"

// migrationFile is one storage migration of a package.
type migrationFile struct {
	name string // file name: what host/observe and readiness call it
	rel  string // path inside the package
	sql  string
	sum  string
}

// migrationsDir is the package folder of the app's storage migrations:
// storage.migrations, else runtimePackage.storage.migrations ("" if none).
func migrationsDir(p *agentpkg.Package) string {
	if s, ok := p.Manifest["storage"].(map[string]any); ok {
		if d := stringField(s, "migrations"); d != "" {
			return d
		}
	}
	if rp, ok := p.Manifest["runtimePackage"].(map[string]any); ok {
		if s, ok := rp["storage"].(map[string]any); ok {
			return stringField(s, "migrations")
		}
	}
	return ""
}

// storageNamespace is the namespace the app declares (its name if none).
func storageNamespace(p *agentpkg.Package, appID string) string {
	if s, ok := p.Manifest["storage"].(map[string]any); ok {
		if ns := stringField(s, "namespace"); ns != "" {
			return ns
		}
	}
	return appID
}

// migrationFiles lists the package's migrations: the .sql files right in
// its migrations folder, by name. They come from the files the package walk
// found, so none lies outside the package.
func migrationFiles(p *agentpkg.Package) ([]migrationFile, error) {
	dir := migrationsDir(p)
	if dir == "" {
		return nil, nil
	}
	dir = path.Clean(strings.TrimPrefix(filepath.ToSlash(dir), "./"))
	var out []migrationFile
	for _, f := range p.Files {
		if path.Dir(f.Path) != dir || !strings.HasSuffix(f.Path, ".sql") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", f.Path, err)
		}
		sum := sha256.Sum256(b)
		out = append(out, migrationFile{name: path.Base(f.Path), rel: f.Path, sql: string(b), sum: "sha256:" + hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// irreversibleRisks are the risks the package's release notes declare for
// its irreversible migrations, by file name (spec 003, Migration notes:
// lifecycle.upgrade.migrations[] with reversible: false and risk).
func irreversibleRisks(p *agentpkg.Package) map[string]string {
	out := map[string]string{}
	lc, _ := p.Manifest["lifecycle"].(map[string]any)
	up, _ := lc["upgrade"].(map[string]any)
	list, _ := up["migrations"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if rev, ok := m["reversible"].(bool); !ok || rev {
			continue
		}
		if file := stringField(m, "storage"); file != "" {
			risk := stringField(m, "risk")
			if risk == "" {
				risk = "it cannot be undone"
			}
			out[path.Base(filepath.ToSlash(file))] = risk
		}
	}
	return out
}

// ledger lists the migrations of appID the host applied, by name.
func (h *Host) ledger(appID string) (map[string]string, error) {
	db, err := h.core()
	if err != nil {
		return nil, err
	}
	rows, err := db.Query(`SELECT name, version FROM migrations WHERE app_id = ?`, appID)
	if err != nil {
		return nil, fmt.Errorf("host database: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]string{}
	for rows.Next() {
		var name, version string
		if err := rows.Scan(&name, &version); err != nil {
			return nil, fmt.Errorf("host database: %w", err)
		}
		out[name] = version
	}
	return out, rows.Err()
}

// migrationRecords is the state of every migration of the installed
// package p of appID: applied (in the ledger), refused, or pending.
func (h *Host) migrationRecords(appID, version string, p *agentpkg.Package) ([]protocol.MigrationRecord, error) {
	files, err := migrationFiles(p)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	done, err := h.ledger(appID)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	refused := h.refusedMigrations[appID]
	h.mu.Unlock()
	out := make([]protocol.MigrationRecord, 0, len(files))
	for _, f := range files {
		r := protocol.MigrationRecord{AppID: appID, Version: version, Name: f.name, State: protocol.MigrationPending}
		if v, ok := done[f.name]; ok {
			r.State, r.Version = protocol.MigrationApplied, v
		} else if why, ok := refused[f.name]; ok {
			r.State, r.Reason = protocol.MigrationRefused, why
		}
		out = append(out, r)
	}
	return out, nil
}

// migrate answers app/migrate: the pending migrations of an installed app
// run once the user approved them (spec 001, Host responsibilities:
// "apply migrations only after review").
func (h *Host) migrate(params protocol.MigrateParams) (protocol.MigrateResult, *jsonrpc2.Error) {
	// fault: migrate-ignores-consent — app/migrate runs the migrations without the user's approval.
	if !params.Consent.Granted && !h.faults.Has("migrate-ignores-consent") {
		return protocol.MigrateResult{}, rpcError(protocol.CodeConsentRequired,
			fmt.Sprintf("the storage migrations of %s need the user's approval (params.consent.granted is false)", params.AppID), nil)
	}
	h.mu.Lock()
	a, ok := h.apps[params.AppID]
	var dir, dataDir, version string
	if ok {
		dir, dataDir, version = a.path, a.dataDir, a.row.Version
	}
	h.mu.Unlock()
	if !ok {
		return protocol.MigrateResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", params.AppID), nil)
	}
	p, findings, err := h.load(dir)
	if err != nil {
		return protocol.MigrateResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		return protocol.MigrateResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("the installed package of %s cannot be read: %s", params.AppID, firstError(findings)), protocol.ErrorData{Findings: findings})
	}
	applied, e := h.applyMigrations(params.AppID, version, dataDir, p)
	if e != nil {
		return protocol.MigrateResult{}, e
	}
	// fault: migrate-answers-every-file — app/migrate answers every migration file of the package as applied, not the ones it applied.
	if files, err := migrationFiles(p); err == nil && h.faults.Has("migrate-answers-every-file") {
		applied = applied[:0]
		for _, f := range files {
			applied = append(applied, f.name)
		}
	}
	return protocol.MigrateResult{OK: true, AppID: params.AppID, Applied: applied}, nil
}

// applyMigrations runs the pending migrations of p in the app's own
// database, in name order, each in one transaction. Every pending
// migration is checked before the first one runs: one that reaches outside
// the app's database is refused and nothing runs (spec 000, Storage and
// data boundary, rule 6: "Host core state must not be writable by
// app-owned migrations").
func (h *Host) applyMigrations(appID, version, dataDir string, p *agentpkg.Package) ([]string, *jsonrpc2.Error) {
	files, err := migrationFiles(p)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	done, err := h.ledger(appID)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	var pending []migrationFile
	for _, f := range files {
		if _, ok := done[f.name]; !ok {
			pending = append(pending, f)
		}
	}
	// fault: migration-partial — each statement is checked only when its turn comes, outside a transaction, so a refused migration leaves what ran before the forbidden statement.
	partial := h.faults.Has("migration-partial")
	// fault: migrations-unvetted — migrations run as written: ATTACH, VACUUM INTO, PRAGMA and load_extension included.
	vet := !h.faults.Has("migrations-unvetted")
	if vet && !partial {
		for _, f := range pending {
			if stmt, word := outsideNamespace(f.sql); word != "" {
				return nil, h.refuseMigration(appID, f, stmt, word)
			}
		}
	}
	db, closeDB, err := h.migrationTarget(dataDir)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	defer closeDB()
	applied := []string{}
	for _, f := range pending {
		// fault: migration-recorded-before-run — each migration is written into the ledger before it runs ("so a host that dies half-way never runs it twice"), and stays there when it fails: readiness stops waiting for it.
		if h.faults.Has("migration-recorded-before-run") {
			if err := h.recordApplied(appID, version, f); err != nil {
				return applied, rpcError(protocol.CodeInternalError, err.Error(), nil)
			}
		}
		if partial {
			for i, stmt := range splitStatements(f.sql) {
				if word := forbiddenWord(stmt); word != "" {
					return applied, h.refuseMigration(appID, f, i+1, word)
				}
				if _, err := db.Exec(stmt); err != nil {
					return applied, migrationFailed(appID, f, err)
				}
			}
		} else if err := runInTx(db, f.sql); err != nil {
			return applied, migrationFailed(appID, f, err)
		}
		if !h.faults.Has("migration-recorded-before-run") {
			if err := h.recordApplied(appID, version, f); err != nil {
				return applied, rpcError(protocol.CodeInternalError, err.Error(), nil)
			}
		}
		applied = append(applied, f.name)
		// fault: migrate-first-pending-only — one approval applies only the first pending migration; the others stay pending.
		if h.faults.Has("migrate-first-pending-only") {
			break
		}
	}
	return applied, nil
}

// migrationTarget opens the database migrations of the app run in: its
// own file in its data folder.
func (h *Host) migrationTarget(dataDir string) (*sql.DB, func(), error) {
	// fault: migrations-in-host-db — app migrations run in the host's own database.
	if h.faults.Has("migrations-in-host-db") {
		db, err := h.core()
		return db, func() {}, err
	}
	db, err := openSQLite(filepath.Join(dataDir, appDBFile))
	if err != nil {
		return nil, nil, err
	}
	return db, func() { _ = db.Close() }, nil
}

// runInTx runs a migration's SQL in one transaction.
func runInTx(db *sql.DB, script string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(script); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// recordApplied writes an applied migration into the host's ledger.
func (h *Host) recordApplied(appID, version string, f migrationFile) error {
	db, err := h.core()
	if err != nil {
		return err
	}
	if _, err := db.Exec(`INSERT OR REPLACE INTO migrations VALUES (?, ?, ?, ?)`, appID, f.name, version, f.sum); err != nil {
		return fmt.Errorf("host database: %w", err)
	}
	h.mu.Lock()
	delete(h.refusedMigrations[appID], f.name)
	h.mu.Unlock()
	return nil
}

// refuseMigration records f as refused and answers with the stable code,
// naming the file, the statement and the keyword.
func (h *Host) refuseMigration(appID string, f migrationFile, stmt int, word string) *jsonrpc2.Error {
	why := fmt.Sprintf("statement %d uses %s, which reaches outside the app's own database", stmt, word)
	h.mu.Lock()
	if h.refusedMigrations[appID] == nil {
		h.refusedMigrations[appID] = map[string]string{}
	}
	h.refusedMigrations[appID][f.name] = why
	h.mu.Unlock()
	msg := fmt.Sprintf("storage migration %s of %s was refused before it ran: %s", f.rel, appID, why)
	return rpcError(protocol.CodeMigrationRefused, msg, protocol.ErrorData{Findings: []protocol.Finding{{
		Code: "migration-outside-namespace", Severity: agentpkg.SeverityError, File: f.rel, Message: msg}}})
}

// migrationFailed answers a migration the database could not run.
func migrationFailed(appID string, f migrationFile, err error) *jsonrpc2.Error {
	return rpcError(protocol.CodeInternalError, fmt.Sprintf("storage migration %s of %s failed and was rolled back: %v", f.rel, appID, err), nil)
}

// forbiddenWords reach outside an app's own SQLite database: another
// database file (ATTACH, DETACH, VACUUM INTO), the engine's settings and the
// file system (PRAGMA), native code (load_extension).
var forbiddenWords = map[string]bool{"ATTACH": true, "DETACH": true, "VACUUM": true, "PRAGMA": true, "LOAD_EXTENSION": true}

// outsideNamespace returns the first statement (counted from 1) of script
// that uses a forbidden word, and the word ("" when none does).
func outsideNamespace(script string) (int, string) {
	for i, stmt := range splitStatements(script) {
		if w := forbiddenWord(stmt); w != "" {
			return i + 1, w
		}
	}
	return 0, ""
}

// forbiddenWord is the first forbidden keyword of a statement, outside
// strings, quoted identifiers and comments ("" when none).
func forbiddenWord(stmt string) string {
	for _, w := range sqlWords(stmt) {
		if forbiddenWords[w] {
			return w
		}
	}
	return ""
}

// splitStatements splits a script at semicolons outside strings, quoted
// identifiers and comments, dropping empty statements.
func splitStatements(script string) []string {
	var out []string
	start := 0
	scanSQL(script, func(i int, c byte) {
		if c == ';' {
			if s := strings.TrimSpace(script[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}, nil)
	if s := strings.TrimSpace(script[start:]); s != "" && len(sqlWords(s)) > 0 {
		out = append(out, s)
	}
	return out
}

// sqlWords lists the bare words of a statement, upper-cased.
func sqlWords(stmt string) []string {
	var words []string
	scanSQL(stmt, nil, func(w string) { words = append(words, strings.ToUpper(w)) })
	return words
}

// scanSQL walks SQL text outside strings ('...'), quoted identifiers ("...",
// `...`, [...]) and comments, calling punct for every other byte that is
// not part of a word and word for every bare word.
func scanSQL(s string, punct func(int, byte), word func(string)) {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	skipTo := func(i int, end string) int {
		if j := strings.Index(s[i:], end); j >= 0 {
			return i + j + len(end)
		}
		return len(s)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipTo(i+1, string(c))
		case c == '[':
			i = skipTo(i+1, "]")
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			i = skipTo(i, "\n")
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			i = skipTo(i+2, "*/")
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			if word != nil {
				word(s[i:j])
			}
			i = j
		default:
			if punct != nil {
				punct(i, c)
			}
			i++
		}
	}
}

// migrationReadiness adds to res a failing check for every migration of an
// installed app that is not applied (spec 000, Readiness: "storage
// migrations are complete or waiting for user approval"): a pending one
// needs setup (the user's approval), a refused one blocks.
func (h *Host) migrationReadiness(appID string, p *agentpkg.Package, res *protocol.ReadinessResult) error {
	// fault: readiness-ignores-migrations — readiness never looks at storage migrations.
	if h.faults.Has("readiness-ignores-migrations") {
		return nil
	}
	_, version := identity(p)
	recs, err := h.migrationRecords(appID, version, p)
	if err != nil {
		return err
	}
	risks := irreversibleRisks(p)
	// fault: irreversible-risk-hidden — an irreversible migration waits for approval like any other, its risk unsaid.
	if h.faults.Has("irreversible-risk-hidden") {
		risks = nil
	}
	// fault: irreversible-risk-first-only — of several irreversible migrations, only the first one's risk is shown.
	if h.faults.Has("irreversible-risk-first-only") && len(risks) > 1 {
		first := ""
		for file := range risks {
			if first == "" || file < first {
				first = file
			}
		}
		risks = map[string]string{first: risks[first]}
	}
	status := ""
	for _, r := range recs {
		if r.State == protocol.MigrationApplied {
			continue
		}
		c := protocol.ReadinessCheck{Severity: agentpkg.SeverityError, Kind: "storage_migration", Key: r.Name, Required: true, Blocking: true}
		if r.State == protocol.MigrationRefused {
			c.Message = fmt.Sprintf("storage migration %s was refused: %s", r.Name, r.Reason)
			status = protocol.StatusBlocked
		} else {
			c.Message = fmt.Sprintf("storage migration %s waits for the user's approval", r.Name)
			if status == "" {
				status = protocol.StatusNeedsSetup
			}
			action := protocol.SetupAction{Key: "approve-migration-" + r.Name,
				Title: "Review and approve storage migration " + r.Name, Kind: "run-migration", Target: r.Name}
			// Spec 003, Migration notes: "show irreversible risks".
			if risk, ok := risks[r.Name]; ok {
				warning := fmt.Sprintf("storage migration %s is irreversible: %s", r.Name, risk)
				c.Message += "; it is irreversible: " + risk
				action.Description = warning
				res.Warnings = append(res.Warnings, warning)
			}
			res.SetupActions = append(res.SetupActions, action)
		}
		res.Checks = append(res.Checks, c)
		res.Blockers = append(res.Blockers, ref(c))
		for i := range res.Entries {
			res.Entries[i].Blockers = append(res.Entries[i].Blockers, ref(c))
			res.Entries[i].Status = worse(res.Entries[i].Status, status)
		}
	}
	if status != "" {
		res.OK = false
		res.Status = worse(res.Status, status)
	}
	return nil
}

// observeStorage adds to r the app's migrations, its storage namespace and
// the digest of the host database (host/observe).
func (h *Host) observeStorage(appID string, r *protocol.ObserveResult) error {
	h.mu.Lock()
	a, installed := h.apps[appID]
	var dir, dataDir, version string
	if installed {
		dir, dataDir, version = a.path, a.dataDir, a.row.Version
	} else if d, ok := h.retained[appID]; ok {
		dataDir = d
	}
	h.mu.Unlock()
	ns := appID
	if installed {
		p, _, err := h.load(dir)
		if err != nil {
			return err
		}
		if p != nil {
			if r.Migrations, err = h.migrationRecords(appID, version, p); err != nil {
				return err
			}
			ns = storageNamespace(p, appID)
		}
	}
	if dataDir != "" && dirExists(dataDir) {
		tables, err := tableNames(filepath.Join(dataDir, appDBFile))
		if err != nil {
			return err
		}
		r.Storage = append(r.Storage, protocol.StorageNamespace{AppID: appID, Namespace: ns, Tables: tables})
	}
	digest, err := h.coreDigest()
	if err != nil {
		return err
	}
	r.HostState = &protocol.HostState{Digest: digest}
	return nil
}
