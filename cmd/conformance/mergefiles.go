package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentapp/conformance/reports"
)

// seqPrefix starts every transcript line (drivers/control writes seq first).
var seqPrefix = []byte(`{"seq":`)

// joinTranscripts writes the shards' transcripts into dst, in shard order,
// each line's seq moved past the lines of the shards before it. It returns
// each shard's offset, by which its specs' exchanges move too.
func joinTranscripts(dst string, shards []*shardReport) ([]int, error) {
	out, err := os.Create(dst)
	if err != nil {
		return nil, fmt.Errorf("creating transcript: %w", err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	offsets := make([]int, len(shards))
	next := 0 // the last seq written
	for i, s := range shards {
		offsets[i] = next
		last, err := copyTranscript(w, filepath.Join(s.dir, reports.TranscriptFile), next)
		if err != nil {
			return nil, err
		}
		if last > next {
			next = last
		}
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("writing transcript: %w", err)
	}
	return offsets, out.Close()
}

// copyTranscript copies one shard's transcript with every seq moved by
// offset and returns the last seq it wrote.
func copyTranscript(w io.Writer, path string, offset int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	last := offset
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			rest, ok := bytes.CutPrefix(line, seqPrefix)
			end := bytes.IndexByte(rest, ',')
			seq, perr := 0, errors.New("no seq")
			if ok && end > 0 {
				seq, perr = strconv.Atoi(string(rest[:end]))
			}
			if perr != nil {
				return 0, fmt.Errorf("%s:%d: seq: the line does not start with {\"seq\":N,", path, n)
			}
			last = seq + offset
			if _, err := fmt.Fprintf(w, `{"seq":%d`, last); err != nil {
				return 0, fmt.Errorf("writing transcript: %w", err)
			}
			if _, err := w.Write(rest[end:]); err != nil {
				return 0, fmt.Errorf("writing transcript: %w", err)
			}
		}
		if errors.Is(err, io.EOF) {
			return last, nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// joinLogs concatenates the shards' ginkgo.log files, in shard order,
// each under a line naming its shard (a shard without one is passed over).
func joinLogs(dst string, shards []*shardReport) error {
	var buf bytes.Buffer
	for _, s := range shards {
		b, err := os.ReadFile(filepath.Join(s.dir, "ginkgo.log"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading ginkgo.log: %w", err)
		}
		fmt.Fprintf(&buf, "=== shard %d/%d (%s)\n", s.rep.Run.Shard.Index, s.rep.Run.Shard.Total, s.dir)
		buf.Write(b)
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// copyArtifacts copies every shard's artifacts/ into the merged report
// folder. A spec's own artifacts come from the shard its result was taken
// from (they must match the digests the report lists); a path two shards
// wrote is otherwise kept from the first.
func copyArtifacts(dst string, shards []*shardReport, rep *reports.Report, from map[string]int) error {
	for _, rr := range rep.Requirements {
		for _, sp := range rr.Specs {
			i, ok := from[specKey(rr.ID, specName(sp))]
			if !ok {
				continue
			}
			for _, a := range sp.Artifacts {
				if err := copyFile(filepath.Join(shards[i].dir, filepath.FromSlash(a.Path)), filepath.Join(dst, filepath.FromSlash(a.Path))); err != nil {
					return err
				}
			}
		}
	}
	for _, s := range shards {
		src := filepath.Join(s.dir, reports.ArtifactsDir)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil // folders are made as files land; links are not copied
			}
			rel, err := filepath.Rel(s.dir, p)
			if err != nil {
				return err
			}
			to := filepath.Join(dst, rel)
			if _, err := os.Lstat(to); err == nil {
				return nil
			}
			return copyFile(p, to)
		})
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("copying %s: %w", src, err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copying artifact: %w", err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copying artifact: %w", err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copying artifact: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying artifact %s: %w", src, err)
	}
	return out.Close()
}
