package mockhost

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"

	// The pure-Go SQLite driver (no cgo): the host database and each app's
	// own database file (spec 000, Storage and data boundary, Recommended
	// placement: "Separate host database plus per-app SQLite database files").
	_ "modernc.org/sqlite"
)

// coreSchema is the host's core database: what it keeps of installed apps
// and the ledger of the storage migrations it applied. No app-owned
// migration may write it (spec 000, Storage and data boundary, rule 6).
const coreSchema = `
CREATE TABLE IF NOT EXISTS apps (app_id TEXT PRIMARY KEY, version TEXT NOT NULL, package_hash TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS migrations (app_id TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (app_id, name));
`

// openSQLite opens a SQLite database file, creating it if needed.
func openSQLite(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path+"?_pragma=synchronous(OFF)")
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// core returns the host database, opening it in the host's data folder on
// first use.
func (h *Host) core() (*sql.DB, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.coreLocked()
}

func (h *Host) coreLocked() (*sql.DB, error) {
	if h.coreDB != nil {
		return h.coreDB, nil
	}
	root, err := h.dataRootLocked()
	if err != nil {
		return nil, err
	}
	db, err := openSQLite(filepath.Join(root, "host.sqlite"))
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(coreSchema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("creating the host database: %w", err)
	}
	h.coreDB = db
	return db, nil
}

// closeCoreLocked closes the host database (the file goes with the data
// folder).
func (h *Host) closeCoreLocked() error {
	if h.coreDB == nil {
		return nil
	}
	err := h.coreDB.Close()
	h.coreDB = nil
	return err
}

// dropCoreLocked closes the host database and removes its file: host/reset
// leaves nothing of the installs before it.
func (h *Host) dropCoreLocked() error {
	if err := h.closeCoreLocked(); err != nil {
		return fmt.Errorf("host/reset: closing the host database: %w", err)
	}
	if h.tmpDir == "" {
		return nil
	}
	if err := os.Remove(filepath.Join(h.tmpDir, "host.sqlite")); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("host/reset: removing the host database: %w", err)
	}
	return nil
}

// syncCore writes what the host keeps of its installed apps into the host
// database, and forgets the migration ledger of apps whose data is gone.
// dispatch calls it after every method that changes the installed apps.
func (h *Host) syncCore() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	db, err := h.coreLocked()
	if err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("host database: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.Exec(`DELETE FROM apps`); err != nil {
		return fmt.Errorf("host database: %w", err)
	}
	ids := make([]string, 0, len(h.apps))
	for id := range h.apps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := h.apps[id].row
		if _, err := tx.Exec(`INSERT INTO apps VALUES (?, ?, ?, ?)`, id, r.Version, r.PackageHash, r.State); err != nil {
			return fmt.Errorf("host database: %w", err)
		}
	}
	rows, err := tx.Query(`SELECT DISTINCT app_id FROM migrations`)
	if err != nil {
		return fmt.Errorf("host database: %w", err)
	}
	var gone []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			_ = rows.Close()
			return fmt.Errorf("host database: %w", err)
		}
		_, installed := h.apps[id]
		_, kept := h.retained[id]
		// fault: uninstall-delete-keeps-ledger — the ledger of applied migrations outlives the data they made, so a reinstall after deleting data never runs them again.
		if !installed && !kept && !h.faults.Has("uninstall-delete-keeps-ledger") {
			gone = append(gone, id)
		}
	}
	_ = rows.Close()
	for _, id := range gone {
		if _, err := tx.Exec(`DELETE FROM migrations WHERE app_id = ?`, id); err != nil {
			return fmt.Errorf("host database: %w", err)
		}
	}
	return tx.Commit()
}

// changesApps reports whether a method can change what the host keeps of
// its installed apps.
func changesApps(method string) bool {
	switch method {
	case protocol.MethodReset, protocol.MethodInstall, protocol.MethodUninstall, protocol.MethodDisable,
		protocol.MethodEnable, protocol.MethodUpdate, protocol.MethodRollback:
		return true
	}
	return false
}

// coreDigest is the digest of the host database's whole content, schema
// included: host/observe's hostState.
func (h *Host) coreDigest() (string, error) {
	db, err := h.core()
	if err != nil {
		return "", err
	}
	return dbDigest(db)
}

// dbDigest hashes every table of db: its SQL, then its rows sorted.
func dbDigest(db *sql.DB) (string, error) {
	tables, err := tableSQL(db)
	if err != nil {
		return "", err
	}
	sum := sha256.New()
	for _, t := range tables {
		fmt.Fprintf(sum, "table %s\n%s\n", t[0], t[1])
		rows, err := dumpRows(db, t[0])
		if err != nil {
			return "", err
		}
		for _, r := range rows {
			fmt.Fprintf(sum, "%s\n", r)
		}
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// tableSQL lists db's tables by name with the SQL that made them.
func tableSQL(db *sql.DB) ([][2]string, error) {
	rows, err := db.Query(`SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out [][2]string
	for rows.Next() {
		var t [2]string
		if err := rows.Scan(&t[0], &t[1]); err != nil {
			return nil, fmt.Errorf("listing tables: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// dumpRows renders every row of table as one line, sorted.
func dumpRows(db *sql.DB, table string) ([]string, error) {
	rows, err := db.Query(`SELECT * FROM "` + strings.ReplaceAll(table, `"`, `""`) + `"`)
	if err != nil {
		return nil, fmt.Errorf("reading table %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("reading table %s: %w", table, err)
	}
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("reading table %s: %w", table, err)
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	sort.Strings(out)
	return out, rows.Err()
}

// tableNames lists the tables of a SQLite database file; a file that does
// not exist has none (and is not created).
func tableNames(path string) ([]string, error) {
	if !fileExists(path) {
		return []string{}, nil
	}
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = db.Close() }()
	tables, err := tableSQL(db)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tables))
	for _, t := range tables {
		names = append(names, t[0])
	}
	return names, nil
}

// fileExists reports whether a file exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
