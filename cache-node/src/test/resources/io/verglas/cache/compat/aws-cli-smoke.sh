#!/usr/bin/env bash
# cp / ls / rm / multipart through a cache node with the AWS CLI.
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

echo "removal"
s3 s3 rm "s3://$BUCKET/cli/big.bin"
s3 s3 rm --recursive "s3://$BUCKET/cli/"
left=$(s3 s3 ls "s3://$BUCKET/cli/" || true)
if [ -n "$left" ]; then
  echo "objects left after rm: $left" >&2
  exit 1
fi
echo "OK"
