using Microsoft.Extensions.Logging;

namespace WidgetSigning.Callers;

/// <summary>Source-generated log messages of caller checks (event ids 7000–7099, with the audit record's). No message carries a token.</summary>
internal static partial class CallersLog
{
    [LoggerMessage(EventId = 7002, Level = LogLevel.Error, Message = "Grants table {Table} could not be read (status {Status}); signing answers 503 until it can")]
    public static partial void GrantsUnreadable(ILogger logger, Exception exception, string table, int status);

    [LoggerMessage(EventId = 7003, Level = LogLevel.Warning, Message = "Caller {ObjectId} has more than {Max} grants; only the first {Max} are read (Grants:MaxReceiversPerCaller)")]
    public static partial void TooManyGrants(ILogger logger, string objectId, int max);

    [LoggerMessage(EventId = 7004, Level = LogLevel.Warning, Message = "Auth:Disabled is set: HTTP calls are not authenticated and grants are not checked. Development only")]
    public static partial void AuthDisabled(ILogger logger);

    [LoggerMessage(EventId = 7005, Level = LogLevel.Error, Message = "This host cannot validate Entra tokens and Auth:PlatformAuthentication is not set; every HTTP call is refused with 401")]
    public static partial void NoTokenValidator(ILogger logger);

    [LoggerMessage(EventId = 7007, Level = LogLevel.Warning, Message = "The token issuer's configuration at {Authority} could not be fetched ({Failure}); calls that need it answer 503 and it is fetched again at most once per {RetryIn}")]
    public static partial void IssuerUnreachable(ILogger logger, Exception exception, string authority, string failure, TimeSpan retryIn);

    [LoggerMessage(EventId = 7008, Level = LogLevel.Information, Message = "The token issuer's configuration at {Authority} was fetched again after {Failures} failures over {Outage}")]
    public static partial void IssuerRecovered(ILogger logger, string authority, int failures, TimeSpan outage);

    [LoggerMessage(EventId = 7009, Level = LogLevel.Information, Message = "Callers come from App Service Authentication: the X-MS-CLIENT-PRINCIPAL header is read (Auth:PlatformAuthentication, WEBSITE_AUTH_ENABLED=True)")]
    public static partial void PlatformPrincipalTrusted(ILogger logger);

    [LoggerMessage(EventId = 7010, Level = LogLevel.Error, Message = "Auth:PlatformAuthentication is set but WEBSITE_AUTH_ENABLED is not true: App Service Authentication is off, so no principal header is trusted; every HTTP call is refused with 401")]
    public static partial void PlatformAuthenticationOff(ILogger logger);
}
