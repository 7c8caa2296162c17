using Microsoft.Extensions.Options;
using WidgetSigning.Callers;
using WidgetSigning.Http;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.TestKit;

/// <summary>Caller checks for tests of the handlers below the host that are not about callers: authentication off, as <c>Auth:Disabled</c> does in development.</summary>
internal static class TestAuthorizers
{
    public static HttpOperation Open() => new(
        new CallerAuthenticator(new RefusingValidator(), Options.Create(new AuthOptions { Disabled = true })),
        new CallerGrants(new NoGrants(), Options.Create(new GrantOptions()), TimeProvider.System),
        TestAudit.Off(),
        TestServices.Metrics());

    private sealed class RefusingValidator : ITokenValidator
    {
        public ValueTask<CallerIdentity> ValidateAsync(string token, CancellationToken cancellationToken) => throw Problems.Unauthenticated("Not in these tests.");
    }

    private sealed class NoGrants : IGrantStore
    {
        public Task<IReadOnlySet<string>> GetReceiversAsync(string objectId, int max, CancellationToken cancellationToken) => Task.FromResult<IReadOnlySet<string>>(new HashSet<string>());
    }
}
