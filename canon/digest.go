package canon

import "crypto/sha256"

// A Digest is the 128-bit digest of a canonical key: the first 16 bytes of
// its SHA-256. Indexes store digests rather than keys, and fingerprints
// publish them in place of labels.
type Digest [16]byte

// DigestOf returns the digest of a canonical key. With a salt, the digest
// is of the salt followed by the key, so that only someone who knows the
// salt can test a guessed label against it.
func DigestOf(key string, salt []byte) Digest {
	return DigestOfBytes([]byte(key), salt)
}

// DigestOfBytes is DigestOf for a key held in bytes (Level.Append's
// output); without a salt it does not allocate.
func DigestOfBytes(key, salt []byte) Digest {
	var d Digest
	if len(salt) == 0 {
		sum := sha256.Sum256(key)
		copy(d[:], sum[:])
		return d
	}
	h := sha256.New()
	h.Write(salt)
	h.Write(key)
	copy(d[:], h.Sum(nil))
	return d
}
