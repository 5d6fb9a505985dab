package io.verglas.cache.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Completing a local multipart upload is idempotent, durably (a repeat after a reopen too). */
class LocalMultipartCompletionTest {
  @TempDir Path root;

  private static OriginException.Reason reasonOf(Throwable e) {
    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof OriginException o ? o.reason() : null;
  }

  @Test
  void aRepeatedCompleteAnswersTheFirstResultAfterAReopenToo() throws Exception {
    MultipartUpload upload;
    List<CompletedPart> parts;
    PutResult first;
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(root)) {
      origin.createBucket("bkt").join();
      String id = origin.createMultipartUpload("bkt", "k", WriteOptions.DEFAULT).join();
      upload = new MultipartUpload("bkt", "k", id);
      String etag = origin.uploadPart(upload, 1, ObjectBody.ofBytes("abc".getBytes())).join();
      parts = List.of(new CompletedPart(1, etag));
      first = origin.completeMultipartUpload(upload, parts, WriteCondition.NONE).join();
      assertThat(origin.completeMultipartUpload(upload, parts, WriteCondition.NONE).join()).isEqualTo(first);
    }
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(root)) {
      assertThat(origin.completeMultipartUpload(upload, parts, WriteCondition.NONE).join()).isEqualTo(first);
      assertThat(origin.head("bkt", "k").join().etag()).isEqualTo(first.etag());
      List<CompletedPart> other = List.of(new CompletedPart(1, "\"0123456789abcdef0123456789abcdef\""));
      assertThatThrownBy(() -> origin.completeMultipartUpload(upload, other, WriteCondition.NONE).join())
          .satisfies(e -> assertThat(reasonOf(e)).isEqualTo(OriginException.Reason.NO_SUCH_UPLOAD));
      assertThatThrownBy(() -> origin.abortMultipartUpload(upload).join())
          .satisfies(e -> assertThat(reasonOf(e)).isEqualTo(OriginException.Reason.NO_SUCH_UPLOAD));
      assertThatThrownBy(() -> origin.listParts(upload, 0, 1000).join())
          .satisfies(e -> assertThat(reasonOf(e)).isEqualTo(OriginException.Reason.NO_SUCH_UPLOAD));
      assertThat(origin.listUploads(new UploadListRequest("bkt", null, null, null, 1000)).join().uploads())
          .isEmpty();
    }
    // Only the completion record is left of the upload.
    try (var files = Files.walk(root.resolve(".verglas/uploads"))) {
      assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
          .containsExactly("completed.json");
    }
  }
}
