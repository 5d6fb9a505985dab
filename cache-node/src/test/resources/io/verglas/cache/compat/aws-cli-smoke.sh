#!/usr/bin/env bash
# cp / ls / rm / multipart, conditional writes, get-object-attributes and directory markers
# through a cache node with the AWS CLI.
# Environment: ENDPOINT, BUCKET, WORK (a scratch directory), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.
set -euo pipefail

s3() { aws --endpoint-url "$ENDPOINT" --region us-east-1 "$@"; }

echo "small object"
echo "hello from the aws cli" > "$WORK/small.txt"
s3 s3 cp "$WORK/small.txt" "s3://$BUCKET/cli/small.txt"
s3 s3 cp "s3://$BUCKET/cli/small.txt" "$WORK/small.out"
cmp "$WORK/small.txt" "$WORK/small.out"

echo "multipart object (20 MiB, 8 MiB parts)"
head -c $((20 * 1024 * 1024)) /dev/urandom > "$WORK/big.bin"
s3 s3 cp "$WORK/big.bin" "s3://$BUCKET/cli/big.bin"
etag=$(s3 s3api head-object --bucket "$BUCKET" --key cli/big.bin --query ETag --output text)
case "$etag" in
  *-3\"|*-3) echo "multipart ETag $etag" ;;
  *) echo "expected a 3-part ETag, got $etag" >&2; exit 1 ;;
esac
s3 s3 cp "s3://$BUCKET/cli/big.bin" "$WORK/big.out"
cmp "$WORK/big.bin" "$WORK/big.out"

echo "listing"
listing=$(s3 s3 ls "s3://$BUCKET/cli/")
echo "$listing"
grep -q "big.bin" <<<"$listing"
grep -q "small.txt" <<<"$listing"

echo "conditional writes (s3api put-object --if-none-match / --if-match)"
echo "first" > "$WORK/first.txt"
echo "second" > "$WORK/second.txt"
s3 s3api put-object --bucket "$BUCKET" --key cli/cond.txt --body "$WORK/first.txt" --if-none-match '*' >/dev/null
if s3 s3api put-object --bucket "$BUCKET" --key cli/cond.txt --body "$WORK/second.txt" --if-none-match '*' \
    2>"$WORK/cond.err"; then
  echo "a second If-None-Match: * put succeeded" >&2; exit 1
fi
grep -q "PreconditionFailed" "$WORK/cond.err"
cond_etag=$(s3 s3api head-object --bucket "$BUCKET" --key cli/cond.txt --query ETag --output text)
s3 s3api put-object --bucket "$BUCKET" --key cli/cond.txt --body "$WORK/second.txt" --if-match "$cond_etag" >/dev/null
if s3 s3api put-object --bucket "$BUCKET" --key cli/cond.txt --body "$WORK/first.txt" --if-match "$cond_etag" \
    2>"$WORK/cond.err"; then
  echo "an If-Match put with a stale ETag succeeded" >&2; exit 1
fi
grep -q "PreconditionFailed" "$WORK/cond.err"
s3 s3 cp "s3://$BUCKET/cli/cond.txt" "$WORK/cond.out"
cmp "$WORK/second.txt" "$WORK/cond.out"

echo "get-object-attributes"
attributes=$(s3 s3api get-object-attributes --bucket "$BUCKET" --key cli/big.bin \
  --object-attributes ETag ObjectSize ObjectParts StorageClass \
  --query '[ObjectSize, ObjectParts.TotalPartsCount, StorageClass]' --output text)
echo "$attributes"
[ "$attributes" = "$(printf '%s\t%s\t%s' $((20 * 1024 * 1024)) 3 STANDARD)" ]

echo "directory marker"
s3 s3api put-object --bucket "$BUCKET" --key cli/dir/ >/dev/null
s3 s3api put-object --bucket "$BUCKET" --key cli/dir/inner.txt --body "$WORK/first.txt" >/dev/null
markers=$(s3 s3api list-objects-v2 --bucket "$BUCKET" --prefix cli/dir/ --query 'Contents[].Key' --output text)
[ "$markers" = "$(printf 'cli/dir/\tcli/dir/inner.txt')" ]

echo "removal"
s3 s3 rm "s3://$BUCKET/cli/big.bin"
s3 s3 rm --recursive "s3://$BUCKET/cli/"
left=$(s3 s3 ls "s3://$BUCKET/cli/" || true)
if [ -n "$left" ]; then
  echo "objects left after rm: $left" >&2
  exit 1
fi
echo "OK"
