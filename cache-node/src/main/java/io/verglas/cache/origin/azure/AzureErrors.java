package io.verglas.cache.origin.azure;

import com.azure.storage.blob.models.BlobStorageException;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Azure's answers in the origin's terms: error codes to {@link Reason}s, ETags quoted. */
final class AzureErrors {
  private static final Pattern MESSAGE = Pattern.compile("<Message>(.*?)</Message>", Pattern.DOTALL);

  private AzureErrors() {}

  /** Azure's ETag spelled as the origin's are: quoted, never weak. */
  static String etag(String azureEtag) {
    if (azureEtag == null) {
      throw new IllegalStateException("Cannot read the origin's answer: it has no ETag");
    }
    return ETags.quote(ETags.bare(azureEtag));
  }

  static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  static int status(Throwable error) {
    return unwrap(error) instanceof BlobStorageException b ? b.getStatusCode() : -1;
  }

  /** The failure a client should see for an SDK error on {@code bucket}/{@code key} (key may be null). */
  static RuntimeException translate(Throwable error, String bucket, String key) {
    Throwable e = unwrap(error);
    if (e instanceof OriginException o) {
      return o;
    }
    String what = key == null ? String.valueOf(bucket) : bucket + "/" + key;
    if (e instanceof BlobStorageException b) {
      String code = b.getErrorCode() == null ? null : b.getErrorCode().toString();
      Reason reason = reasonFor(code, b.getStatusCode(), key != null);
      String message = serviceMessage(b, code);
      if (reason != null) {
        return new OriginException(reason, message + " (origin: azure " + what + ")", b);
      }
      return new IllegalStateException("The origin answered " + b.getStatusCode() + " " + code
          + " for " + what + ": " + message, b);
    }
    if (causedByIo(e)) {
      return new OriginException(Reason.UNAVAILABLE, "Cannot reach the origin for " + what + ": " + e, e);
    }
    if (e instanceof IllegalArgumentException) {
      return new OriginException(Reason.INVALID_ARGUMENT, "Cannot send the request for " + what + ": "
          + e.getMessage(), e);
    }
    return e instanceof RuntimeException re ? re : new CompletionException(e);
  }

  private static boolean causedByIo(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** Azure's own message (the XML body's Message, up to its first line), after the error code. */
  private static String serviceMessage(BlobStorageException b, String code) {
    String text = b.getServiceMessage() != null ? b.getServiceMessage() : String.valueOf(b.getMessage());
    Matcher m = MESSAGE.matcher(text);
    String message = m.find() ? m.group(1).trim() : "status " + b.getStatusCode();
    int nl = message.indexOf('\n');
    return (code == null ? "" : code + ": ") + (nl < 0 ? message : message.substring(0, nl).trim());
  }

  static Reason reasonFor(String code, int status, boolean objectRequest) {
    if (code != null) {
      switch (code) {
        case "BlobNotFound": return Reason.NO_SUCH_KEY;
        case "ContainerNotFound": return Reason.NO_SUCH_BUCKET;
        case "ContainerBeingDeleted": return Reason.CONFLICT;
        case "ConditionNotMet", "BlobAlreadyExists", "SourceConditionNotMet", "TargetConditionNotMet":
          return Reason.PRECONDITION_FAILED;
        case "ContainerAlreadyExists": return Reason.BUCKET_ALREADY_OWNED;
        case "InvalidResourceName", "OutOfRangeInput":
          return objectRequest ? Reason.INVALID_KEY : Reason.INVALID_BUCKET_NAME;
        case "InvalidBlockList", "InvalidBlockId", "InvalidBlobOrBlock": return Reason.INVALID_PART;
        case "InvalidRange", "InvalidHeaderValue", "InvalidMetadata", "InvalidQueryParameterValue",
            "Md5Mismatch", "InvalidMd5", "RequestBodyTooLarge":
          return Reason.INVALID_ARGUMENT;
        case "ServerBusy", "OperationTimedOut": return Reason.SLOW_DOWN;
        case "InternalError": return Reason.UNAVAILABLE;
        default: break;
      }
    }
    return Reason.ofStatus(status, objectRequest);
  }
}
