/* The complete elliptic integral of the first kind, K(k) = pi / (2 agm(1, sqrt(1 - k^2))): a rigid pendulum
 * of amplitude theta0 swings with the period 4 sqrt(I / (m g d)) K(sin(theta0 / 2)). */
#ifndef CATENA_TESTS_ELLIPK_H
#define CATENA_TESTS_ELLIPK_H

#include <math.h>

static inline double ellipk(double k) {
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40; ++i) {
        double an = 0.5 * (a + b), bn = sqrt(a * b);
        a = an, b = bn;
    }
    return 3.14159265358979323846 / (2.0 * a);
}

#endif
