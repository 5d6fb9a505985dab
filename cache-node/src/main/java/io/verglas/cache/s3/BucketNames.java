package io.verglas.cache.s3;

import java.util.List;
import java.util.regex.Pattern;

/**
 * S3's rules for the name of a new general purpose bucket, checked on CreateBucket before the
 * origin sees the name (stores differ in what they accept): 3 to 63 characters of lower-case
 * letters, digits, dots and hyphens; a letter or digit first and last; no two adjacent dots; not
 * formatted as an IP address; none of the prefixes and suffixes S3 reserves.
 */
final class BucketNames {
  private static final Pattern CHARACTERS = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
  private static final List<String> RESERVED_PREFIXES = List.of("xn--", "sthree-", "amzn-s3-demo-");
  private static final List<String> RESERVED_SUFFIXES =
      List.of("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3");

  private BucketNames() {}

  /** Throws InvalidBucketName naming the rule the name breaks. */
  static void check(String name) {
    String why = violation(name);
    if (why != null) {
      throw new S3Exception(S3ErrorCode.INVALID_BUCKET_NAME,
          "The specified bucket is not valid: " + name + " (" + why + ")").detail("BucketName", name);
    }
  }

  /** The rule a name breaks, or null if it is a valid bucket name. */
  static String violation(String name) {
    if (name.length() < 3 || name.length() > 63) {
      return "a bucket name has 3 to 63 characters";
    }
    if (!CHARACTERS.matcher(name).matches()) {
      return "only lower-case letters, digits, '.' and '-', beginning and ending with a letter or digit";
    }
    if (name.contains("..")) {
      return "no two adjacent periods";
    }
    if (IP_ADDRESS.matcher(name).matches()) {
      return "a bucket name must not be formatted as an IP address";
    }
    for (String prefix : RESERVED_PREFIXES) {
      if (name.startsWith(prefix)) {
        return "the prefix " + prefix + " is reserved";
      }
    }
    for (String suffix : RESERVED_SUFFIXES) {
      if (name.endsWith(suffix)) {
        return "the suffix " + suffix + " is reserved";
      }
    }
    return null;
  }
}
