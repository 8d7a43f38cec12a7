package text

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestHashText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"text":"abc"}`, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{`{"text":"abc","algorithm":"md5"}`, "900150983cd24fb0d6963f7d28e17f72"},
		{`{"text":"abc","algorithm":"sha1"}`, "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{`{"text":"","algorithm":"sha256"}`, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{`{"text":"abc","encoding":"base64"}`, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="},
	} {
		got := tooltest.MustRunObject(t, Tools(), "hash_text", tc.args)
		if got["hash"] != tc.want {
			t.Errorf("hash_text(%s) = %v, want %s", tc.args, got["hash"], tc.want)
		}
	}
}

func TestHashTextBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, mention string }{
		{`{}`, `"text"`},
		{`{"text":5}`, "expected string"},
		{`{"text":"a","algorithm":"crc32"}`, "sha256"},
	} {
		tooltest.MustFailWith(t, Tools(), "hash_text", tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}
