package io.verglas.cache.origin.azure;

import static io.verglas.cache.origin.azure.AzureTesting.body;
import static io.verglas.cache.origin.azure.AzureTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.sas.BlobContainerSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SAS authentication with a container-scoped token, the credential {@code azure://ACCOUNT/CONTAINER}
 * is meant for: everything the cache node does inside one container works with it, including
 * copies (the source URL carries the token) and multipart uploads (their markers live in the
 * container). The account-SAS case runs the whole compatibility spec.
 */
class AzureSasTest {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();

  private static String containerSas(BlobContainerClient container, String permissions) {
    return container.generateSas(new BlobServiceSasSignatureValues(OffsetDateTime.now().plusHours(1),
        BlobContainerSasPermission.parse(permissions)));
  }

  private static AzureOrigin sasOrigin(String sas) {
    return AzureOrigin.builder().endpoint(AZURITE.endpoint()).sasToken(sas).build();
  }

  @Test
  void aContainerSasReadsWritesCopiesListsAndUploads() {
    BlobContainerClient container = AZURITE.adminClient().createBlobContainer("scoped");
    try (AzureOrigin origin = sasOrigin("?" + containerSas(container, "racwdl"))) {
      assertThat(origin.bucketExists("scoped").join()).isTrue();
      String etag = origin.put("scoped", "a", body("hello"), WriteOptions.DEFAULT).join().etag();
      assertThat(text(origin.readRange("scoped", "a", etag, 0, 5).join())).isEqualTo("hello");
      assertThat(origin.head("scoped", "a").join().etag()).isEqualTo(etag);
      origin.copy(new CopyRequest("scoped", "a", null, etag, "scoped", "b", null, null)).join();
      MultipartUpload upload = new MultipartUpload("scoped", "c",
          origin.createMultipartUpload("scoped", "c", WriteOptions.DEFAULT).join());
      String part = origin.uploadPart(upload, 1, body("parted")).join();
      PutResult c = origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, part)), WriteCondition.NONE)
          .join();
      assertThat(text(origin.readRange("scoped", "c", c.etag(), 0, 6).join())).isEqualTo("parted");
      assertThat(origin.list(new ListRequest("scoped", "", null, null, null, 100)).join().objects())
          .extracting(ListedObject::key).containsExactly("a", "b", "c");
      origin.delete("scoped", "b", WriteCondition.NONE).join();
      assertThat(container.getBlobClient("b").exists()).isFalse();
    }
  }

  @Test
  void aReadOnlySasCannotWrite() {
    BlobContainerClient container = AZURITE.adminClient().createBlobContainer("readonly");
    container.getBlobClient("k").upload(com.azure.core.util.BinaryData.fromString("kept"));
    try (AzureOrigin origin = sasOrigin(containerSas(container, "rl"))) {
      String etag = origin.head("readonly", "k").join().etag();
      assertThatThrownBy(() -> origin.put("readonly", "k", body("changed"), WriteOptions.DEFAULT).join())
          .hasMessageContaining("403");
      assertThat(text(origin.readRange("readonly", "k", etag, 0, 4).join())).isEqualTo("kept");
    }
  }
}
