package githubfake

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tools/text"
)

// commit is one commit of a repository: its whole tree as a map from
// path to content, and the hashes git would give it.
type commit struct {
	sha     string
	tree    string
	parents []string
	message string
	author  string // login
	when    time.Time
	files   map[string]string
}

// blobSHA is the git object name of a blob holding content.
func blobSHA(content string) string {
	return gitHash("blob", []byte(content))
}

func gitHash(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// treeSHA is the git object name of the tree holding files (path →
// content), built from nested trees as git builds it.
func treeSHA(files map[string]string) string {
	type entry struct {
		name, mode string
		sha        []byte
		dir        bool
	}
	children := map[string]map[string]string{}
	var entries []entry
	for p, content := range files {
		dir, rest, nested := strings.Cut(p, "/")
		if nested {
			if children[dir] == nil {
				children[dir] = map[string]string{}
			}
			children[dir][rest] = content
			continue
		}
		sum, _ := hex.DecodeString(blobSHA(content))
		entries = append(entries, entry{name: p, mode: "100644", sha: sum})
	}
	for dir, sub := range children {
		sum, _ := hex.DecodeString(treeSHA(sub))
		entries = append(entries, entry{name: dir, mode: "40000", sha: sum, dir: true})
	}
	// git sorts a directory as if its name ended in "/".
	key := func(e entry) string {
		if e.dir {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var body []byte
	for _, e := range entries {
		body = append(body, e.mode+" "+e.name+"\x00"...)
		body = append(body, e.sha...)
	}
	return gitHash("tree", body)
}

// newCommit makes a commit of files on top of parents, hashed as git does.
func newCommit(files map[string]string, parents []string, message, author string, when time.Time) *commit {
	c := &commit{tree: treeSHA(files), parents: parents, message: message, author: author, when: when, files: files}
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	sig := fmt.Sprintf("%s <%s> %d +0000", author, noreplyEmail(author), when.Unix())
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", sig, sig, message)
	c.sha = gitHash("commit", []byte(b.String()))
	return c
}

func noreplyEmail(login string) string { return login + "@users.noreply.github.com" }

// ancestors is every commit reachable from sha (itself included), with
// its distance.
func (r *repoState) ancestors(sha string) map[string]int {
	seen := map[string]int{}
	queue := []string{sha}
	for d := 0; len(queue) > 0; d++ {
		var next []string
		for _, s := range queue {
			if _, ok := seen[s]; ok {
				continue
			}
			seen[s] = d
			if c := r.commits[s]; c != nil {
				next = append(next, c.parents...)
			}
		}
		queue = next
	}
	return seen
}

// mergeBase is the nearest common ancestor of a and b ("" when none).
func (r *repoState) mergeBase(a, b string) string {
	ofA := r.ancestors(a)
	best, bestD := "", -1
	for s, d := range r.ancestors(b) {
		if _, ok := ofA[s]; ok && (bestD < 0 || d < bestD || (d == bestD && s < best)) {
			best, bestD = s, d
		}
	}
	return best
}

// only lists the commits reachable from head and not from base, oldest
// first.
func (r *repoState) only(head, base string) []*commit {
	ofBase := r.ancestors(base)
	var out []*commit
	for s := range r.ancestors(head) {
		if _, ok := ofBase[s]; !ok && r.commits[s] != nil {
			out = append(out, r.commits[s])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].when.Equal(out[j].when) {
			return out[i].when.Before(out[j].when)
		}
		return out[i].sha < out[j].sha
	})
	return out
}

// merge3 merges the changes from base to theirs into ours, file by file;
// conflicts lists the paths both sides changed differently.
func merge3(base, ours, theirs map[string]string) (map[string]string, []string) {
	out := map[string]string{}
	var conflicts []string
	paths := map[string]bool{}
	for _, m := range []map[string]string{base, ours, theirs} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		b, inB := base[p]
		o, inO := ours[p]
		t, inT := theirs[p]
		switch {
		case inT == inB && t == b:
			if inO {
				out[p] = o
			}
		case inO == inB && o == b, inO == inT && o == t:
			if inT {
				out[p] = t
			}
		default:
			conflicts = append(conflicts, p)
		}
	}
	sort.Strings(conflicts)
	return out, conflicts
}

// fileChange is one file of a comparison, as GitHub lists it.
type fileChange struct {
	filename, status, patch, sha string
	additions, deletions         int
}

// diffTrees lists the files that differ from a to b, by name.
func diffTrees(a, b map[string]string) []fileChange {
	var out []fileChange
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		old, inA := a[p]
		cur, inB := b[p]
		if inA && inB && old == cur {
			continue
		}
		fc := fileChange{filename: p, status: "modified"}
		switch {
		case !inA:
			fc.status = "added"
		case !inB:
			fc.status = "removed"
		}
		if inB {
			fc.sha = blobSHA(cur)
		} else {
			fc.sha = blobSHA(old)
		}
		fc.patch, fc.additions, fc.deletions = unifiedDiff(old, cur)
		out = append(out, fc)
	}
	return out
}

// unifiedDiff is the patch GitHub shows for a file changed from a to b:
// hunks with three lines of context and no file header (text.Diff's,
// the minimal line diff string_diff and fs_diff answer), and the lines
// added and removed.
func unifiedDiff(a, b string) (string, int, int) {
	d, err := text.Diff(context.Background(), "a", "b", a, b, 3)
	if err != nil || d.Equal {
		return "", 0, 0
	}
	_, hunks, _ := strings.Cut(d.Unified, "\n+++ b\n")
	return strings.TrimSuffix(hunks, "\n"), d.Added, d.Removed
}
