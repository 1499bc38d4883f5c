//! SipHash, the keyed hash of the store's primary keys and request keys.
//!
//! The function std's `HashMap` uses today (SipHash-1-3 under random keys), so the tables keep
//! its resistance to collision flooding. It is written out here to hash a whole string in one
//! pass ([`hash_str`]): std's streaming `Hasher` takes a string's bytes and then the `0xff` that
//! `str`'s `Hash` appends in two writes, 204 instructions for a 16-byte request key against 139.
//! [`Sip`] is the streaming [`Hasher`] the maps use, which gives every `str` the same hash as
//! [`hash_str`]. The tests hold both to std's `SipHasher` (SipHash-2-4, the same code with other
//! round counts) and to the SipHash paper's test vector.

use std::hash::Hasher;

/// The 128-bit key of a SipHash function (no `Debug`, so that nothing prints it).
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    pub k0: u64,
    pub k1: u64,
}

/// The four words of SipHash's internal state.
#[derive(Clone, Copy)]
struct State {
    v0: u64,
    v1: u64,
    v2: u64,
    v3: u64,
}

impl State {
    #[inline(always)]
    fn new(keys: Keys) -> State {
        State {
            v0: keys.k0 ^ 0x736f_6d65_7073_6575,
            v1: keys.k1 ^ 0x646f_7261_6e64_6f6d,
            v2: keys.k0 ^ 0x6c79_6765_6e65_7261,
            v3: keys.k1 ^ 0x7465_6462_7974_6573,
        }
    }

    /// One SipRound.
    #[inline(always)]
    fn round(&mut self) {
        let State { v0, v1, v2, v3 } = self;
        *v0 = v0.wrapping_add(*v1);
        *v1 = v1.rotate_left(13) ^ *v0;
        *v0 = v0.rotate_left(32);
        *v2 = v2.wrapping_add(*v3);
        *v3 = v3.rotate_left(16) ^ *v2;
        *v0 = v0.wrapping_add(*v3);
        *v3 = v3.rotate_left(21) ^ *v0;
        *v2 = v2.wrapping_add(*v1);
        *v1 = v1.rotate_left(17) ^ *v2;
        *v2 = v2.rotate_left(32);
    }

    /// Takes in one 8-byte word of the message with `C` rounds.
    #[inline(always)]
    fn compress<const C: usize>(&mut self, word: u64) {
        self.v3 ^= word;
        for _ in 0..C {
            self.round();
        }
        self.v0 ^= word;
    }

    /// The hash, after `D` rounds of finalization.
    #[inline(always)]
    fn finish<const D: usize>(mut self) -> u64 {
        self.v2 ^= 0xff;
        for _ in 0..D {
            self.round();
        }
        self.v0 ^ self.v1 ^ self.v2 ^ self.v3
    }
}

/// The little-endian word of 8 bytes.
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

/// The little-endian value of fewer than 8 bytes, with two overlapping loads at most.
#[inline(always)]
fn partial(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    debug_assert!(n < 8);
    let word4 = |at: usize| {
        let mut w = [0; 4];
        w.copy_from_slice(&bytes[at..at + 4]);
        u64::from(u32::from_le_bytes(w))
    };
    match n {
        0 => 0,
        1..=3 => {
            let byte = |i: usize| u64::from(bytes[i]) << (8 * i);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        _ => word4(0) | word4(n - 4) << (8 * (n - 4)),
    }
}

/// The SipHash-`C`-`D` of `s` under `keys`, as a [`Sip`] fed by `str`'s `Hash` gives it (the
/// string's bytes and then `0xff`).
#[inline]
pub(crate) fn hash_str<const C: usize, const D: usize>(keys: Keys, s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut state = State::new(keys);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        state.compress::<C>(word(w));
    }
    let rest = words.remainder();
    let tail = partial(rest) | 0xff << (8 * rest.len());
    let length = (bytes.len() as u64).wrapping_add(1) << 56;
    if rest.len() == 7 {
        // The `0xff` fills the word: the length goes alone into one more.
        state.compress::<C>(tail);
        state.compress::<C>(length);
    } else {
        state.compress::<C>(length | tail);
    }
    state.finish::<D>()
}

/// A streaming SipHash-`C`-`D` [`Hasher`].
#[derive(Clone)]
pub(crate) struct Sip<const C: usize, const D: usize> {
    state: State,
    /// The bytes written since the last whole word, little-endian.
    tail: u64,
    /// How many bytes `tail` holds (0 to 7).
    in_tail: usize,
    /// How many bytes were written in all.
    length: usize,
}

impl<const C: usize, const D: usize> Sip<C, D> {
    pub fn new(keys: Keys) -> Self {
        Sip {
            state: State::new(keys),
            tail: 0,
            in_tail: 0,
            length: 0,
        }
    }
}

impl<const C: usize, const D: usize> Hasher for Sip<C, D> {
    fn write(&mut self, mut bytes: &[u8]) {
        self.length = self.length.wrapping_add(bytes.len());
        if self.in_tail > 0 {
            let fill = (8 - self.in_tail).min(bytes.len());
            self.tail |= partial(&bytes[..fill]) << (8 * self.in_tail);
            self.in_tail += fill;
            bytes = &bytes[fill..];
            if self.in_tail < 8 {
                return;
            }
            self.state.compress::<C>(self.tail);
            (self.tail, self.in_tail) = (0, 0);
        }
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.state.compress::<C>(word(w));
        }
        let rest = words.remainder();
        (self.tail, self.in_tail) = (partial(rest), rest.len());
    }

    fn finish(&self) -> u64 {
        let mut state = self.state;
        state.compress::<C>((self.length as u64) << 56 | self.tail);
        state.finish::<D>()
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{Hash, Hasher};

    use super::{Keys, Sip, hash_str};

    const KEYS: Keys = Keys {
        k0: 0x0706_0504_0302_0100,
        k1: 0x0f0e_0d0c_0b0a_0908,
    };

    /// Message lengths: every one up to 40 (each length of tail, with and without whole words
    /// before it), and long ones whose length byte wraps (SipHash keeps the length mod 256).
    fn lengths() -> impl Iterator<Item = usize> {
        (0..=40).chain([63, 64, 65, 255, 256, 257, 1000, 1025])
    }

    /// `n` bytes taking every value, the high bit included.
    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 167 + 13) as u8).collect()
    }

    /// A string of `n` bytes mixing characters of one to four bytes.
    fn text(n: usize) -> String {
        let mut s = String::new();
        for c in ['a', 'é', '€', '😀'].into_iter().cycle() {
            if s.len() + c.len_utf8() > n {
                break;
            }
            s.push(c);
        }
        while s.len() < n {
            s.push('z');
        }
        s
    }

    /// The test vector of the SipHash paper (Aumasson and Bernstein, appendix A): SipHash-2-4
    /// of the 15 bytes 00..0e under the key 00..0f.
    #[test]
    fn sip24_gives_the_papers_test_vector() {
        let message: Vec<u8> = (0..15).collect();
        let mut sip = Sip::<2, 4>::new(KEYS);
        sip.write(&message);
        assert_eq!(sip.finish(), 0xa129_ca61_49be_45e5);
    }

    /// std's `SipHasher` (SipHash-2-4) agrees with the streaming hasher, whether the message is
    /// written in one piece, in pieces of one size (every size for short messages), or in
    /// pieces of uneven sizes.
    #[test]
    #[allow(deprecated)]
    fn sip24_agrees_with_std_however_the_message_is_split() {
        for n in lengths() {
            let message = bytes(n);
            let mut std_sip = std::hash::SipHasher::new_with_keys(KEYS.k0, KEYS.k1);
            std_sip.write(&message);
            let expected = std_sip.finish();
            let sizes: Vec<usize> = if n <= 40 {
                (1..=n.max(1)).collect()
            } else {
                vec![1, 3, 7, 8, 9, 100]
            };
            for size in sizes {
                let mut sip = Sip::<2, 4>::new(KEYS);
                for chunk in message.chunks(size) {
                    sip.write(chunk);
                }
                assert_eq!(sip.finish(), expected, "{n} bytes in pieces of {size}");
            }
            let (mut sip, mut rest, mut size) = (Sip::<2, 4>::new(KEYS), &message[..], 0);
            while !rest.is_empty() {
                size = size % 11 + 1;
                let (piece, tail) = rest.split_at(size.min(rest.len()));
                sip.write(piece);
                rest = tail;
            }
            assert_eq!(sip.finish(), expected, "{n} bytes in uneven pieces");
        }
    }

    /// The one-pass hash of a string is what the streaming hasher gives that `str` (its bytes
    /// and `str`'s `0xff`), in both round counts, and for SipHash-2-4 what std's gives it.
    #[test]
    fn hash_str_is_the_streaming_hash_of_the_str() {
        #[allow(deprecated)]
        fn std_sip24(s: &str) -> u64 {
            let mut h = std::hash::SipHasher::new_with_keys(KEYS.k0, KEYS.k1);
            s.hash(&mut h);
            h.finish()
        }
        fn streamed<const C: usize, const D: usize>(s: &str) -> u64 {
            let mut h = Sip::<C, D>::new(KEYS);
            s.hash(&mut h);
            h.finish()
        }
        for n in lengths() {
            let s = text(n);
            assert_eq!(s.len(), n);
            assert_eq!(hash_str::<2, 4>(KEYS, &s), std_sip24(&s), "{n} bytes");
            assert_eq!(hash_str::<2, 4>(KEYS, &s), streamed::<2, 4>(&s), "{n} bytes");
            assert_eq!(hash_str::<1, 3>(KEYS, &s), streamed::<1, 3>(&s), "{n} bytes");
        }
    }

    /// Different keys give different hashes, and so does every string here.
    #[test]
    fn hashes_depend_on_the_keys_and_the_string() {
        let other = Keys { k0: 1, k1: 2 };
        let mut seen = std::collections::HashSet::new();
        for n in lengths() {
            let s = text(n);
            assert_ne!(hash_str::<1, 3>(KEYS, &s), hash_str::<1, 3>(other, &s), "{s:?}");
            assert!(seen.insert(hash_str::<1, 3>(KEYS, &s)), "{s:?}");
        }
    }
}
