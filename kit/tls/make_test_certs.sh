#!/usr/bin/env bash
# Writes the TLS test certificates of the kit's transport suite into this folder: a CA, a
# server certificate for localhost/127.0.0.1/::1 and a client certificate signed by it, and an
# unrelated CA with its own client certificate (what a peer that must be refused presents).
# Valid for 100 years; EC P-256 keys, PKCS#8. Rerun only to replace them (they are committed).
set -euo pipefail
cd "$(dirname "$0")"
days=36500
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# make_ca NAME SUBJECT
make_ca() {
  key "$1.key"
  openssl req -new -x509 -key "$1.key" -subj "$2" -days "$days" -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$1.pem"
}

# make_leaf NAME SUBJECT CA USAGE [SAN]
make_leaf() {
  key "$1.key"
  openssl req -new -key "$1.key" -subj "$2" -out "$work/$1.csr"
  {
    echo "basicConstraints = critical, CA:FALSE"
    echo "keyUsage = critical, digitalSignature, keyEncipherment"
    echo "extendedKeyUsage = $4"
    if [[ -n "${5:-}" ]]; then echo "subjectAltName = $5"; fi
  } > "$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial \
    -CAserial "$work/$3.srl" -days "$days" -sha256 -extfile "$work/$1.ext" -out "$1.pem" 2>/dev/null
}

make_ca ca "/CN=Tessera Test CA"
make_leaf server "/CN=localhost" ca serverAuth "DNS:localhost,IP:127.0.0.1,IP:::1"
make_leaf client "/CN=tessera-test-client" ca clientAuth
make_ca other_ca "/CN=Unrelated Test CA"
make_leaf other_client "/CN=unrelated-test-client" other_ca clientAuth
rm -f ca.key other_ca.key  # nothing else is ever signed with them
echo "wrote $(ls *.pem | tr '\n' ' ')"
