"""DKIM signatures on what the judge sends (RFC 6376 with dkimpy; Ed25519 keys by RFC 8463), so that
receivers that want SPF or DKIM of every sender, and aligned DMARC of bulk ones, take the results
mail: signed by the GM address's own domain (d=), which is what DMARC aligns with From.

A key is a file: an RSA key in PEM (2048 bits), or an Ed25519 key as dkimpy reads it (the 32-byte
seed, base64). `gm mail dkim-key` makes one, readable by the judge's user only, and says the DNS
record to publish at <selector>._domainkey.<domain>; `gm serve` makes the default one at its first
start (gm.server.judge_dkim_key).
"""
from __future__ import annotations

import base64
import errno
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import dkim as dkimpy
import nacl.encoding
import nacl.signing
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

Algorithm = Literal["rsa", "ed25519"]
RSA_BITS = 2048
# What the signature covers, where the mail has it: what a receiver shows and threads by, the
# list headers, and the MIME structure.
SIGNED = (b"From", b"To", b"Subject", b"Date", b"Message-ID", b"In-Reply-To", b"References", b"List-Id",
          b"List-Unsubscribe", b"List-Unsubscribe-Post", b"MIME-Version", b"Content-Type")


@dataclass(frozen=True)
class DkimKey:
    """The judge's signing key: its selector, the domain it signs for, and the private key (as
    dkimpy reads it). Picklable: each outbox process gets a copy."""

    selector: str
    domain: str
    algorithm: Algorithm
    private: bytes

    def __repr__(self) -> str:  # never the key in a log
        return f"DkimKey({self.selector}._domainkey.{self.domain}, {self.algorithm})"

    @property
    def record_name(self) -> str:
        return f"{self.selector}._domainkey.{self.domain}"

    def record(self) -> str:
        """The TXT record to publish at record_name."""
        return f"v=DKIM1; k={self.algorithm}; p={public_key(self)}"


def public_key(key: DkimKey) -> str:
    """The p= of the key's DNS record: base64 of the RSA key's SubjectPublicKeyInfo, or of the
    Ed25519 key's 32 bytes."""
    if key.algorithm == "ed25519":
        return nacl.signing.SigningKey(key.private, encoder=nacl.encoding.Base64Encoder).verify_key.encode(
            encoder=nacl.encoding.Base64Encoder).decode("ascii")
    loaded = serialization.load_pem_private_key(key.private, password=None)
    spki = loaded.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(spki).decode("ascii")


def new_key(path: Path, algorithm: Algorithm) -> bytes:
    """Make a key and write it to `path`, mode 0600 from its first byte; returns it. Never over an
    existing file (a key in use would stop matching its record): FileExistsError then, also when
    another process made it meanwhile, whose key is whole by then (it appears at once, linked into
    place from a temporary file beside it), so two judges starting together on one volume share it."""
    if algorithm == "ed25519":
        private = nacl.signing.SigningKey.generate().encode(encoder=nacl.encoding.Base64Encoder)
    else:
        private = rsa.generate_private_key(public_exponent=65537, key_size=RSA_BITS).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")  # O_EXCL, 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(private)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, path)  # fails if path exists, however it came to
        except OSError as e:
            if isinstance(e, FileExistsError) or e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP):
                raise
            _write_new(path, private)  # a file system without hard links: created exclusively all the same
    finally:
        os.unlink(temporary)
    return private


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def load_key(path: Path, selector: str, domain: str) -> DkimKey:
    """The key in `path` for `selector` and `domain`; raises ValueError saying what is wrong with it."""
    try:
        data = path.read_bytes().strip()
    except OSError as e:
        raise ValueError(f"cannot read the DKIM key {path}: {e.strerror or e}") from None
    if data.startswith(b"-----BEGIN"):
        try:
            loaded = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as e:
            raise ValueError(f"the DKIM key {path} is not a readable RSA key: {e}") from None
        if not isinstance(loaded, rsa.RSAPrivateKey):
            raise ValueError(f"the DKIM key {path} is PEM but not RSA: give an RSA key, or an Ed25519 one as dkimpy "
                             "writes it (gm mail dkim-key --ed25519)")
        if loaded.key_size < 1024:
            raise ValueError(f"the DKIM key {path} has {loaded.key_size} bits: receivers refuse under 1024; "
                             f"make one of {RSA_BITS} with gm mail dkim-key")
        pem = loaded.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                   serialization.NoEncryption())
        return DkimKey(selector, domain, "rsa", pem)
    try:
        seed = base64.b64decode(data, validate=True)
    except ValueError:
        seed = b""
    if len(seed) != 32:
        raise ValueError(f"the DKIM key {path} is neither an RSA key in PEM nor an Ed25519 key (32 bytes, base64)")
    return DkimKey(selector, domain, "ed25519", data)


def sign(message: bytes, key: DkimKey) -> bytes:
    """`message` (as it goes out, CRLF) with the judge's DKIM-Signature on top."""
    present = {line.split(b":", 1)[0].strip().lower() for line in message.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
               if line[:1] not in (b" ", b"\t") and b":" in line}
    headers = [h for h in SIGNED if h.lower() in present]
    algorithm = b"ed25519-sha256" if key.algorithm == "ed25519" else b"rsa-sha256"
    signature = dkimpy.sign(message, key.selector.encode(), key.domain.encode(), key.private,
                            canonicalize=(b"relaxed", b"relaxed"), signature_algorithm=algorithm,
                            include_headers=headers)
    return signature + message
