package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code ./verglas local --nodes 3}: three cache nodes on this machine in one cache cluster, each
 * serving the same bytes at its own S3 port, listed in endpoints.json, with the membership and
 * the peer counters of every node in the admin port's {@code /stats}.
 */
class LocalClusterITCase {
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().options(config -> config.nodes(3)).build();

  @Test
  void threeNodesServeTheSameTablesAndShareTheirBlocks() throws Exception {
    LocalStack stack = local.stack();
    EndpointsFile endpoints = stack.endpoints();
    assertThat(endpoints.s3Endpoints()).hasSize(3).first().isEqualTo(endpoints.s3Endpoint());
    assertThat(EndpointsFile.read(stack.config().endpointsFile()).s3Endpoints())
        .isEqualTo(endpoints.s3Endpoints());

    TestingOrders.push(endpoints, 0, 300);
    assertThat(TestingOrders.awaitRows(
        Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties()), 300)).isEqualTo(300);

    List<S3Client> clients = endpoints.s3Endpoints().stream().map(uri -> new ObjectStoreEndpoint(
        uri, endpoints.region(), endpoints.accessKey(), endpoints.secretKey(), endpoints.bucket())
        .newClient()).toList();
    try {
      List<S3Object> objects = clients.get(0).listObjectsV2Paginator(r -> r.bucket(endpoints.bucket())
          .prefix("shop/orders/")).contents().stream().toList();
      assertThat(objects).isNotEmpty();
      for (S3Object object : objects) {
        byte[] first = read(clients.get(0), endpoints.bucket(), object.key());
        for (S3Client other : clients.subList(1, 3)) {
          assertThat(read(other, endpoints.bucket(), object.key())).as(object.key()).isEqualTo(first);
        }
      }
    } finally {
      clients.forEach(S3Client::close);
    }

    JsonNode nodes = stats(endpoints).path("cluster").path("nodes");
    assertThat(nodes).hasSize(3);
    long peerHits = 0;
    for (JsonNode node : nodes) {
      assertThat(node.path("report").path("members")).hasSize(3)
          .allSatisfy(member -> assertThat(member.path("state").asText()).isEqualTo("ACTIVE"));
      peerHits += node.path("report").path("counters").path("peerHits").asLong();
    }
    assertThat(peerHits).as("blocks one node read from its owner").isPositive();

    for (URI node : endpoints.s3Endpoints()) {
      HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(node + "/v1/query"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"lookup\",\"table\":\"shop.orders\",\"keys\":[7]}"))
          .header("Content-Type", "application/json")
          .header("Authorization", "Bearer " + endpoints.catalogToken()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(node + ": " + answer.body()).isEqualTo(200);
      assertThat(JSON.readTree(answer.body()).at("/rows/0/id").asLong()).as(node.toString()).isEqualTo(7);
    }
  }

  private static byte[] read(S3Client client, String bucket, String key) {
    return client.getObject(r -> r.bucket(bucket).key(key), ResponseTransformer.toBytes())
        .asByteArray();
  }

  /** The admin port's {@code /stats}. */
  static JsonNode stats(EndpointsFile endpoints) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(endpoints.adminUri() + "/stats"))
        .header("Authorization", "Bearer " + endpoints.adminToken()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
