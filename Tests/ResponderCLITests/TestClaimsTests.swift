import Testing

@testable import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The shared claims: a file is claimed once; an index the run does not have is never refused.
@Suite struct TestClaimsTests {
    @Test func aFileIsClaimedOnce() throws {
        let claims = try #require(TestClaims.create(count: 5))
        #expect(claims.fd >= 10)
        #expect(!claims.claimed(3))
        #expect(claims.claim(3))
        #expect(claims.claimed(3))
        #expect(claims.owner(3) == getpid())
        #expect(!claims.claim(3))
        #expect(!claims.claimed(2))
        #expect(claims.claim(-1) && claims.claim(5) && claims.claim(5))
        #expect(!claims.claimed(5))
        // a run without files still has claims (one byte)
        #expect(TestClaims.create(count: 0)?.count == 1)
    }

    @Test func aWorkerWithoutItsParentsClaimsHasNone() {
        // this test process's descriptor 4, if any, is not the parent's memfd
        #expect(TestClaims.attach() == nil)
    }
}
