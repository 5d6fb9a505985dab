package io.verglas.cli.cachenode;

import io.verglas.access.ScopedTokens;
import java.util.Map;

/**
 * The keys of a cache node run by itself, read from the environment: the origin's key pair,
 * the key pair clients sign with, optionally the jobs' key pair (their reads are not counted
 * as clients' heat), the REST catalog's and the admin port's bearer tokens, and in a cache
 * cluster its shared secret (null when not set). The scoped token keys are read from the same
 * environment by {@link ScopedTokens#fromEnvironment}.
 */
public record NodeKeys(String originAccessKey, String originSecretKey, String accessKey, String secretKey,
    String jobAccessKey, String jobSecretKey, String catalogToken, String adminToken, String clusterSecret) {
  static final String ORIGIN_ACCESS_KEY = "VERGLAS_ORIGIN_ACCESS_KEY";
  static final String ORIGIN_SECRET_KEY = "VERGLAS_ORIGIN_SECRET_KEY";
  static final String ACCESS_KEY = "VERGLAS_S3_ACCESS_KEY";
  static final String SECRET_KEY = "VERGLAS_S3_SECRET_KEY";
  static final String JOB_ACCESS_KEY = "VERGLAS_JOB_ACCESS_KEY";
  static final String JOB_SECRET_KEY = "VERGLAS_JOB_SECRET_KEY";
  static final String CATALOG_TOKEN = "VERGLAS_CATALOG_TOKEN";
  static final String ADMIN_TOKEN = "VERGLAS_ADMIN_TOKEN";
  static final String CLUSTER_SECRET = "VERGLAS_CLUSTER_SECRET";
  public static final String DESCRIPTION = ORIGIN_ACCESS_KEY + " and " + ORIGIN_SECRET_KEY
      + " (the origin's), " + ACCESS_KEY + " and " + SECRET_KEY + " (clients'), optionally "
      + JOB_ACCESS_KEY + " and " + JOB_SECRET_KEY + " (the jobs'), " + CATALOG_TOKEN
      + " (/catalog), " + ADMIN_TOKEN + " (admin reads), optionally " + ScopedTokens.KEY_ENV
      + " and " + ScopedTokens.PREVIOUS_KEYS_ENV + " (the key of worker runs' scoped tokens and"
      + " earlier ones, comma-separated: their S3 session credentials are accepted) and, in a"
      + " cache cluster, " + CLUSTER_SECRET + " (the members', at least 16 characters).";

  public static NodeKeys from(Map<String, String> env) {
    String jobAccess = env.get(JOB_ACCESS_KEY);
    String jobSecret = env.get(JOB_SECRET_KEY);
    if ((jobAccess == null) != (jobSecret == null)) {
      throw new IllegalArgumentException("Cannot start the cache node: set both " + JOB_ACCESS_KEY
          + " and " + JOB_SECRET_KEY + ", or neither");
    }
    return new NodeKeys(required(env, ORIGIN_ACCESS_KEY), required(env, ORIGIN_SECRET_KEY),
        required(env, ACCESS_KEY), required(env, SECRET_KEY), jobAccess, jobSecret,
        required(env, CATALOG_TOKEN), required(env, ADMIN_TOKEN), env.get(CLUSTER_SECRET));
  }

  private static String required(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("Cannot start the cache node: " + name + " is not set ("
          + DESCRIPTION + ")");
    }
    return value;
  }
}
