package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTUtil;
import org.junit.jupiter.api.Test;

class RestRouteTest {
  @Test
  void matchesIcebergPathsWithEncodedVariables() {
    RestRoute.Match load = RestRoute.match("GET", "/v1/namespaces/a%1Fb%2Fc/tables/t+x");
    assertThat(load.route()).isEqualTo(RestRoute.LOAD_TABLE);
    assertThat(RESTUtil.decodeNamespace(load.rawVariables().get("namespace")))
        .isEqualTo(Namespace.of("a", "b/c"));
    assertThat(RESTUtil.decodeString(load.rawVariables().get("table"))).isEqualTo("t x");

    assertThat(RestRoute.match("POST", "/v1/namespaces/a/tables/t").route()).isEqualTo(RestRoute.UPDATE_TABLE);
    assertThat(RestRoute.match("HEAD", "/v1/namespaces/a").route()).isEqualTo(RestRoute.NAMESPACE_EXISTS);
    assertThat(RestRoute.match("POST", "/v1/namespaces/a/properties").route()).isEqualTo(RestRoute.UPDATE_NAMESPACE);
    assertThat(RestRoute.match("POST", "/v1/tables/rename").route()).isEqualTo(RestRoute.RENAME_TABLE);
    assertThat(RestRoute.match("POST", "/v1/namespaces/a/tables/t/metrics").route()).isEqualTo(RestRoute.REPORT_METRICS);
    assertThat(RestRoute.match("GET", "/v1/config").route()).isEqualTo(RestRoute.CONFIG);
  }

  @Test
  void refusesWhatNoRouteServes() {
    assertThat(RestRoute.match("PUT", "/v1/namespaces/a")).isNull();
    assertThat(RestRoute.match("GET", "/v1/namespaces/a/tables/t/")).isNull();
    assertThat(RestRoute.match("GET", "/v1/namespaces//tables")).isNull();
    assertThat(RestRoute.match("GET", "/v1/namespaces/a/views")).isNull();
    assertThat(RestRoute.match("GET", "")).isNull();
    assertThat(RestRoute.match("GET", "/v1/prefix/namespaces")).isNull();
  }
}
